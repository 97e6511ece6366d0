package kernel

import (
	"encoding/json"
	"sync"
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
	if t != nil {
		k.comms.mu.Lock()
		k.comms.open[c.CommID] = comm
		k.comms.mu.Unlock()
		if err := t(comm, c.Data); err == nil {
			return
		}
		k.comms.remove(c.CommID)
	} else {
		k.log.Printf("comm_open: no target %q; closing comm %s", c.TargetName, c.CommID)
	}
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
