package kernel

import (
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// abortWindow bounds how late an execute request of another session, sent
// before a failure (by its header date), may arrive and still be aborted.
const abortWindow = time.Second

type executeContent struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// executor runs the execute requests of q one at a time, until q is
// deleted or the kernel stops.
func (k *Kernel) executor(q *shellQueue) {
	for {
		r, ok := q.next(k.ctx)
		if !ok {
			return
		}
		k.execute(q, r)
	}
}

func (k *Kernel) execute(q *shellQueue, r request) {
	var c executeContent
	if err := r.msg.DecodeContent(&c); err != nil {
		k.status(r.msg.Header, "busy")
		k.replyBadContent(r, err)
		k.status(r.msg.Header, "idle")
		return
	}
	parent := r.msg.Header
	// The session runs one cell at a time: a subshell's cell waits here
	// for the main shell's (or another subshell's) to end, and the other
	// way round. Its status is busy while it waits (an interrupt then
	// stops the cell that runs); otherwise busy goes out once the cell's
	// turn is open, so that an interrupt sent on seeing it stops this cell.
	waited := !k.cellMu.TryLock()
	if waited {
		k.status(parent, "busy")
		k.cellMu.Lock()
	}
	defer k.cellMu.Unlock()
	k.mu.Lock()
	k.lastParent = parent
	k.running = true
	k.mu.Unlock()
	// From here an interrupt applies to this cell, even before it reaches
	// the worker.
	defer k.client.Begin()()
	if !waited {
		k.status(parent, "busy")
	}
	defer k.status(parent, "idle")
	// The cell stops counting as running before its idle goes out (the
	// defers run last first): a comm message that a frontend sends on
	// seeing idle is between cells, and its callback's output goes under
	// it (relay), not under this cell.
	defer func() {
		k.mu.Lock()
		k.running = false
		k.mu.Unlock()
	}()

	if q.shouldAbort(parent) {
		k.reply(r, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.count()})
		return
	}
	store := !c.Silent && (c.StoreHistory == nil || *c.StoreHistory)
	k.mu.Lock()
	if store {
		k.execCount++
	}
	count := k.execCount
	k.mu.Unlock()
	if !c.Silent {
		k.publish(parent, "execute_input", map[string]any{"code": c.Code, "execution_count": count})
	}

	var result string // text/plain of execute_result, for history
	cell := client.Cell{
		Code: c.Code, Silent: c.Silent, AllowStdin: c.AllowStdin,
		UserExpressions: c.UserExpressions, Unlisted: !store,
		MsgID: parent.MsgID,
	}
	if store {
		cell.Count = count
	}
	res, err := k.client.Execute(k.ctx, cell, func(ev workerproto.Event) {
		switch ev.Kind {
		case workerproto.EvResult:
			if ev.Bundle != nil {
				result = ev.Bundle.Text()
				k.publish(parent, "execute_result", map[string]any{
					"execution_count": count, "data": orEmpty(ev.Bundle.Data), "metadata": orEmpty(ev.Bundle.Metadata),
				})
			}
		case workerproto.EvInputRequest:
			if err := k.stdin.send(r.msg.Identities, parent, "input_request",
				map[string]any{"prompt": ev.Prompt, "password": ev.Password}); err != nil {
				k.log.Print(err)
			}
		default:
			k.publishEvent(parent, ev)
		}
	})
	if err != nil {
		res = client.Result{Error: &workerproto.CellError{Name: workerproto.EnameWorkerError, Value: err.Error(), Traceback: []string{err.Error()}}}
	}
	if ce := res.Error; ce != nil {
		if ce.Traceback == nil {
			ce.Traceback = []string{}
		}
		k.publish(parent, "error", ce)
	}
	if store {
		k.hist.add(count, c.Code, result)
	}
	if ce := res.Error; ce != nil {
		// The failure is dated and the queue emptied before the reply
		// goes out: a request that the client sends on seeing the reply
		// comes after the failure and must run, however fast it arrives.
		var aborted []request
		if c.StopOnError == nil || *c.StopOnError {
			aborted = q.fail(newFailure(r))
		}
		k.reply(r, "execute_reply", map[string]any{
			"status": "error", "execution_count": count,
			"ename": ce.Name, "evalue": ce.Value, "traceback": ce.Traceback,
		})
		k.abort(aborted)
		return
	}
	exprs := res.UserExpressions
	if exprs == nil {
		exprs = map[string]map[string]any{}
	}
	payload := []any{}
	if res.Exit {
		// "exit" in jupyter console: ask it to quit and shut the kernel
		// down, as IPython's exit does; notebooks ignore the payload.
		payload = append(payload, map[string]any{"source": "ask_exit", "keepkernel": false})
	}
	if res.Page != "" {
		// "name?": the documentation goes to the pager, as IPython does.
		payload = append(payload, map[string]any{
			"source": "page", "data": map[string]any{"text/plain": res.Page}, "start": 0,
		})
	}
	k.reply(r, "execute_reply", map[string]any{
		"status": "ok", "execution_count": count, "user_expressions": exprs, "payload": payload,
	})
}

// publishEvent publishes a display event, or a widget callback's printed
// text, as a child of parent.
func (k *Kernel) publishEvent(parent wire.Header, ev workerproto.Event) {
	switch ev.Kind {
	case workerproto.EvDisplay, workerproto.EvUpdateDisplay:
		if ev.Bundle == nil {
			return
		}
		msgType := "display_data"
		if ev.Kind == workerproto.EvUpdateDisplay {
			msgType = "update_display_data"
		}
		k.publish(parent, msgType, displayContent(*ev.Bundle))
	case workerproto.EvClearOutput:
		k.publish(parent, "clear_output", map[string]bool{"wait": ev.Wait})
	case workerproto.EvStream:
		if ev.Text != "" && (ev.Stream == "stdout" || ev.Stream == "stderr") {
			k.publish(parent, "stream", map[string]string{"name": ev.Stream, "text": ev.Text})
		}
	case workerproto.EvComm:
		if ev.Comm != nil {
			k.publishComm(parent, *ev.Comm)
		}
	case workerproto.EvDebug:
		if ev.Debug != nil {
			k.publish(parent, "debug_event", ev.Debug)
		}
	default:
		k.log.Printf("worker: ignored event %q", ev.Kind)
	}
}

func displayContent(b workerproto.Bundle) map[string]any {
	c := map[string]any{"data": orEmpty(b.Data), "metadata": orEmpty(b.Metadata)}
	if b.DisplayID != "" {
		c["transient"] = map[string]string{"display_id": b.DisplayID}
	} else {
		c["transient"] = map[string]string{}
	}
	return c
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (k *Kernel) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.execCount
}

// failure is what shouldAbort needs of the last cell that failed.
type failure struct {
	at      time.Time // when it failed, by the kernel's clock
	session string    // the session of its request
	// clientAt is when it failed by the clock of that session's client:
	// the request's header date plus the time the kernel held it. It is
	// zero when the date does not parse.
	clientAt time.Time
}

// newFailure dates the failure of cell r now, on the kernel's clock and
// on its client's.
func newFailure(r request) failure {
	now := time.Now()
	f := failure{at: now, session: r.msg.Header.Session}
	if sent, err := time.Parse(time.RFC3339Nano, r.msg.Header.Date); err == nil {
		f.clientAt = sent.Add(now.Sub(r.arrived))
	}
	return f
}

// abort answers the execute requests rs, queued behind a failed cell,
// with status "aborted", as ipykernel does with stop_on_error; the queues
// of the other subshells go on.
func (k *Kernel) abort(rs []request) {
	for _, r := range rs {
		k.status(r.msg.Header, "busy")
		k.reply(r, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.count()})
		k.status(r.msg.Header, "idle")
	}
}

// shouldAbort reports whether an execute request, arriving after a
// failure, was sent before it: the client queued it behind the failed
// cell, but it had not reached the queue when the failure drained it.
//
// A request of the failed cell's own session is compared with the failure
// on that client's clock, however late it arrives (a loaded machine may
// take seconds to deliver it), so no clock skew and no timing enters.
// Another session's clock may differ from the kernel's, so its requests
// are compared on the kernel's clock and only within abortWindow.
func (q *shellQueue) shouldAbort(h wire.Header) bool {
	q.mu.Lock()
	f := q.failed
	q.mu.Unlock()
	if f.at.IsZero() {
		return false
	}
	sent, err := time.Parse(time.RFC3339Nano, h.Date)
	if err != nil {
		return false
	}
	if h.Session == f.session && !f.clientAt.IsZero() {
		return sent.Before(f.clientAt)
	}
	return time.Since(f.at) <= abortWindow && sent.Before(f.at)
}

// onOutput publishes worker output as stream messages of the running cell
// (or of the last one, for output from goroutines that outlive it).
func (k *Kernel) onOutput(stream, text string) {
	k.mu.Lock()
	parent := k.lastParent
	k.mu.Unlock()
	k.publish(parent, "stream", map[string]string{"name": stream, "text": text})
}

// onOrphan publishes display events that arrive between cells.
func (k *Kernel) onOrphan(ev workerproto.Event) {
	k.mu.Lock()
	parent := k.lastParent
	k.mu.Unlock()
	k.publishEvent(parent, ev)
}
