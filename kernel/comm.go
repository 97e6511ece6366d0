package kernel

import (
	"encoding/json"
	"sync"

	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// CommTarget opens comms of one target_name: it is called on comm_open
// with the new comm and the message's data, and sets the comm's handlers.
// Returning an error refuses the comm, which is then closed.
type CommTarget func(c *Comm, data json.RawMessage) error

// Comm is an open comm between a frontend widget and the kernel.
type Comm struct {
	ID, Target string
	// OnMsg and OnClose, when set, receive the data of comm_msg and
	// comm_close messages.
	OnMsg, OnClose func(data json.RawMessage)

	k *Kernel
	// session: the comm belongs to the Go session in the worker (a
	// widget), and the kernel relays its messages there.
	session bool
}

// Send sends data to the frontend side of the comm (comm_msg on iopub).
func (c *Comm) Send(data any) {
	c.k.mu.Lock()
	parent := c.k.lastParent
	c.k.mu.Unlock()
	c.k.publish(parent, "comm_msg", map[string]any{"comm_id": c.ID, "data": data})
}

// Close closes the comm from the kernel side.
func (c *Comm) Close(data any) {
	c.k.comms.remove(c.ID)
	c.k.mu.Lock()
	parent := c.k.lastParent
	c.k.mu.Unlock()
	c.k.publish(parent, "comm_close", map[string]any{"comm_id": c.ID, "data": orNil(data)})
}

func orNil(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// RegisterCommTarget makes comm_open requests for name reach t.
func (k *Kernel) RegisterCommTarget(name string, t CommTarget) {
	k.comms.mu.Lock()
	defer k.comms.mu.Unlock()
	k.comms.targets[name] = t
}

type commRegistry struct {
	mu      sync.Mutex
	targets map[string]CommTarget
	open    map[string]*Comm
}

func (r *commRegistry) init() {
	r.targets = map[string]CommTarget{}
	r.open = map[string]*Comm{}
}

func (r *commRegistry) get(id string) *Comm {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open[id]
}

func (r *commRegistry) remove(id string) *Comm {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.open[id]
	delete(r.open, id)
	return c
}

type commContent struct {
	CommID     string          `json:"comm_id"`
	TargetName string          `json:"target_name"`
	Data       json.RawMessage `json:"data"`
}

func (k *Kernel) commOpen(r request) {
	var c commContent
	if err := r.msg.DecodeContent(&c); err != nil {
		k.log.Print(err)
		return
	}
	k.comms.mu.Lock()
	t := k.comms.targets[c.TargetName]
	k.comms.mu.Unlock()
	comm := &Comm{ID: c.CommID, Target: c.TargetName, k: k}
	if t == nil {
		// The session's targets (jupyter.widget.control): the worker
		// answers, and closes the comm again if it has no such target.
		comm.session = true
		k.comms.mu.Lock()
		k.comms.open[c.CommID] = comm
		k.comms.mu.Unlock()
		k.relay(r, workerproto.CommMsg{Type: workerproto.CommOpen, ID: c.CommID, Target: c.TargetName, Data: c.Data})
		return
	}
	k.comms.mu.Lock()
	k.comms.open[c.CommID] = comm
	k.comms.mu.Unlock()
	if err := t(comm, c.Data); err == nil {
		return
	}
	k.comms.remove(c.CommID)
	// Refused, as ipykernel does: close it again so the frontend knows.
	k.publish(r.msg.Header, "comm_close", map[string]any{"comm_id": c.CommID, "data": map[string]any{}})
}

func (k *Kernel) commMsg(r request) {
	var c commContent
	if err := r.msg.DecodeContent(&c); err != nil {
		k.log.Print(err)
		return
	}
	comm := k.comms.get(c.CommID)
	if comm == nil {
		k.log.Printf("comm_msg: no comm %s", c.CommID)
		return
	}
	if comm.session {
		k.relay(r, workerproto.CommMsg{Type: workerproto.CommMessage, ID: c.CommID, Data: c.Data})
		return
	}
	if comm.OnMsg != nil {
		comm.OnMsg(c.Data)
	}
}

func (k *Kernel) commClose(r request) {
	var c commContent
	if err := r.msg.DecodeContent(&c); err != nil {
		k.log.Print(err)
		return
	}
	comm := k.comms.remove(c.CommID)
	if comm == nil {
		k.log.Printf("comm_close: no comm %s", c.CommID)
		return
	}
	if comm.session {
		k.relay(r, workerproto.CommMsg{Type: workerproto.CommClose, ID: c.CommID, Data: c.Data})
		return
	}
	if comm.OnClose != nil {
		comm.OnClose(c.Data)
	}
}

func (k *Kernel) commInfo(r request) {
	var c struct {
		TargetName string `json:"target_name"`
	}
	if err := r.msg.DecodeContent(&c); err != nil {
		k.replyBadContent(r, err)
		return
	}
	k.comms.mu.Lock()
	comms := map[string]any{}
	for id, comm := range k.comms.open {
		if c.TargetName == "" || comm.Target == c.TargetName {
			comms[id] = map[string]string{"target_name": comm.Target}
		}
	}
	k.comms.mu.Unlock()
	k.reply(r, "comm_info_reply", map[string]any{"status": "ok", "comms": comms})
}

// relay passes a comm message of the frontend to the session and
// publishes what its handlers do as children of the message, until they
// are done: the frontend's future of the message is still open then, so
// a widget Output capturing under its msg_id sees the callback's output.
// What the callback prints comes as EvStream events of the message, also
// while a cell runs, whose own prints stay the cell's; between cells the
// rest of the worker's output (goroutines a callback started, compiled
// code) goes under the message too.
func (k *Kernel) relay(r request, m workerproto.CommMsg) {
	parent := r.msg.Header
	m.Metadata = r.msg.Metadata
	m.Buffers = r.msg.Buffers
	m.MsgID = parent.MsgID
	k.mu.Lock()
	saved, between := k.lastParent, !k.running
	if between {
		k.lastParent = parent
	}
	k.mu.Unlock()
	err := k.client.Comm(k.ctx, m, func(ev workerproto.Event) { k.publishEvent(parent, ev) })
	if between {
		k.mu.Lock()
		if !k.running && k.lastParent.MsgID == parent.MsgID {
			k.lastParent = saved
		}
		k.mu.Unlock()
	}
	if err != nil {
		k.log.Printf("%s %s: %v", r.msgType(), m.ID, err)
		if m.Type == workerproto.CommOpen {
			// Refused or lost on the way: forget it, as the frontend will.
			k.comms.remove(m.ID)
		}
	}
}

// publishComm publishes a comm message of the session, keeping the
// kernel's list of open comms (comm_info_request) up to date.
func (k *Kernel) publishComm(parent wire.Header, m workerproto.CommMsg) {
	data := m.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	var msgType string
	content := map[string]any{"comm_id": m.ID, "data": data}
	switch m.Type {
	case workerproto.CommOpen:
		msgType = "comm_open"
		content["target_name"] = m.Target
		k.comms.mu.Lock()
		k.comms.open[m.ID] = &Comm{ID: m.ID, Target: m.Target, k: k, session: true}
		k.comms.mu.Unlock()
	case workerproto.CommMessage:
		msgType = "comm_msg"
	case workerproto.CommClose:
		msgType = "comm_close"
		k.comms.remove(m.ID)
	default:
		k.log.Printf("worker: ignored comm message of type %q", m.Type)
		return
	}
	topic := [][]byte{[]byte("kernel." + k.session + "." + msgType)}
	if err := k.iopub.sendMessage(topic, parent, msgType, content, m.Metadata, m.Buffers); err != nil {
		k.log.Print(err)
	}
}

// closeSessionComms closes every comm of the Go session, on the frontend
// too: its worker was replaced, and nothing answers them any more (a
// widget's view then stops sending).
func (k *Kernel) closeSessionComms() {
	k.comms.mu.Lock()
	var ids []string
	for id, c := range k.comms.open {
		if c.session {
			ids = append(ids, id)
			delete(k.comms.open, id)
		}
	}
	k.comms.mu.Unlock()
	k.mu.Lock()
	parent := k.lastParent
	k.mu.Unlock()
	for _, id := range ids {
		k.publish(parent, "comm_close", map[string]any{"comm_id": id, "data": map[string]any{}})
	}
}

// relayComms handles the queued comm messages one at a time, in order,
// each between its busy and idle status.
func (k *Kernel) relayComms() {
	for {
		select {
		case r := <-k.commQ:
			k.handle(r)
		case <-k.ctx.Done():
			return
		}
	}
}
