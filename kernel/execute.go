package kernel

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/gnnlab/gnnlab/interp/supervisor"
	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
	"github.com/gnnlab/gnnlab/viz/display"
)

// interruptGrace is how long a cell has to stop after an interrupt before
// its worker is killed and replaced. The session itself waits up to 2 s
// for an interrupted cell to wind down before it answers (interp's
// stopWait), and a loaded machine needs some of that: killing sooner would
// throw away sessions that were stopping normally.
const interruptGrace = 2500 * time.Millisecond

// abortWindow bounds how late an execute request sent before a failure
// (by its header date) may arrive and still be aborted.
const abortWindow = time.Second

type executeContent struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// executor runs queued execute requests one at a time.
func (k *Kernel) executor() {
	for {
		r, ok := k.next()
		if !ok {
			return
		}
		k.execute(r)
	}
}

// next blocks until an execute request is queued or the kernel stops.
func (k *Kernel) next() (request, bool) {
	for {
		k.queueMu.Lock()
		if len(k.queue) > 0 {
			r := k.queue[0]
			k.queue = k.queue[1:]
			k.queueMu.Unlock()
			return r, true
		}
		k.queueMu.Unlock()
		select {
		case <-k.wake:
		case <-k.ctx.Done():
			return request{}, false
		}
	}
}

// outcome is what an execution produced.
type outcome struct {
	err     *workerproto.CellError // nil on success
	result  string                 // text/plain of execute_result, for history
	exprs   map[string]map[string]any
	payload []any // execute_reply payloads (the pager)
}

func (k *Kernel) execute(r request) {
	var c executeContent
	if err := r.msg.DecodeContent(&c); err != nil {
		k.status(r.msg.Header, "busy")
		k.replyBadContent(r, err)
		k.status(r.msg.Header, "idle")
		return
	}
	parent := r.msg.Header
	k.mu.Lock()
	k.running = &r
	k.runSeq++
	k.sent, k.interruptPending = false, false
	k.lastParent = parent
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.running = nil
		k.mu.Unlock()
	}()
	k.status(parent, "busy")
	defer k.status(parent, "idle")

	if k.shouldAbort(parent) {
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

	var out outcome
	if name, detail, ok := pageRequest(c.Code); ok {
		out = k.page(r, name, detail)
	} else if name, ok := magic(c.Code); ok {
		out = k.runMagic(r, name)
	} else {
		out = k.run(r, c, count, true)
	}
	if out.err != nil {
		k.publish(parent, "error", out.err)
	}
	if store {
		k.hist.add(count, c.Code, out.result)
	}
	if out.err != nil {
		k.reply(r, "execute_reply", map[string]any{
			"status": "error", "execution_count": count,
			"ename": out.err.Name, "evalue": out.err.Value, "traceback": out.err.Traceback,
		})
		if c.StopOnError == nil || *c.StopOnError {
			k.abortQueued()
		}
		return
	}
	exprs := out.exprs
	if exprs == nil {
		exprs = map[string]map[string]any{}
	}
	payload := out.payload
	if payload == nil {
		payload = []any{}
	}
	k.reply(r, "execute_reply", map[string]any{
		"status": "ok", "execution_count": count, "user_expressions": exprs, "payload": payload,
	})
}

// run executes code on the worker, publishing its output as children of
// r. It records the cell for %replay when it succeeds and record is set.
func (k *Kernel) run(r request, c executeContent, count int, record bool) outcome {
	k.workerMu.Lock()
	defer k.workerMu.Unlock()
	var out outcome
	k.mu.Lock()
	if k.interruptPending {
		// Interrupted before it reached the worker: do not start it.
		k.interruptPending = false
		k.mu.Unlock()
		out.err = &workerproto.CellError{Name: "interrupted", Value: "the cell was interrupted before it started",
			Traceback: []string{"interrupted: the cell was interrupted before it started"}}
		return out
	}
	k.sent = true
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.sent = false
		k.mu.Unlock()
	}()

	req := workerproto.Request{
		Op: workerproto.OpExecute, Code: c.Code, Silent: c.Silent,
		AllowStdin: c.AllowStdin, UserExpressions: c.UserExpressions,
	}
	done, err := k.sup.Call(k.ctx, req, func(ev workerproto.Event) {
		switch ev.Kind {
		case workerproto.EvError:
			out.err = ev.Error
		case workerproto.EvResult:
			if ev.Bundle != nil {
				out.result = ev.Bundle.Text()
				k.publish(r.msg.Header, "execute_result", map[string]any{
					"execution_count": count, "data": orEmpty(ev.Bundle.Data), "metadata": orEmpty(ev.Bundle.Metadata),
				})
			}
		case workerproto.EvInputRequest:
			if err := k.stdin.send(r.msg.Identities, r.msg.Header, "input_request",
				map[string]any{"prompt": ev.Prompt, "password": ev.Password}); err != nil {
				k.log.Print(err)
			}
		default:
			k.publishEvent(r.msg.Header, ev)
		}
	})
	var ce *supervisor.CrashError
	switch {
	case errors.As(err, &ce):
		out.err = k.crashError(ce.Crash)
	case err != nil:
		out.err = &workerproto.CellError{Name: "worker error", Value: err.Error(), Traceback: []string{err.Error()}}
	}
	if out.err == nil && done.Error != nil {
		out.err = done.Error
	}
	if out.err != nil {
		if out.err.Traceback == nil {
			out.err.Traceback = []string{}
		}
		return out
	}
	out.exprs = done.UserExpressions
	if record {
		k.mu.Lock()
		k.succeeded = append(k.succeeded, c.Code)
		k.mu.Unlock()
	}
	return out
}

// publishEvent publishes a display event as a child of parent.
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
	default:
		k.log.Printf("worker: ignored event %q", ev.Kind)
	}
}

func displayContent(b display.Bundle) map[string]any {
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

// abortQueued answers every execute request queued behind a failed cell
// with status "aborted", as ipykernel does with stop_on_error.
func (k *Kernel) abortQueued() {
	k.mu.Lock()
	k.failedAt = time.Now()
	k.mu.Unlock()
	k.queueMu.Lock()
	q := k.queue
	k.queue = nil
	k.queueMu.Unlock()
	for _, r := range q {
		k.status(r.msg.Header, "busy")
		k.reply(r, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.count()})
		k.status(r.msg.Header, "idle")
	}
}

// shouldAbort reports whether an execute request, arriving just after a
// failure, was sent before it: the client queued it behind the failed
// cell, but it had not reached the queue when the failure drained it.
func (k *Kernel) shouldAbort(h wire.Header) bool {
	k.mu.Lock()
	failedAt := k.failedAt
	k.mu.Unlock()
	if failedAt.IsZero() || time.Since(failedAt) > abortWindow {
		return false
	}
	sent, err := time.Parse(time.RFC3339Nano, h.Date)
	return err == nil && sent.Before(failedAt)
}

// interrupt stops the running cell: an interrupt request to the worker
// naming it, and if the cell is still running after interruptGrace, a new
// worker.
func (k *Kernel) interrupt() {
	k.mu.Lock()
	running, sent, seq := k.running != nil, k.sent, k.runSeq
	if running && !sent {
		// Between busy and the worker: run will not start the cell.
		k.interruptPending = true
	}
	k.mu.Unlock()
	if !running || !sent {
		return
	}
	if err := k.sup.Interrupt(); err != nil {
		k.log.Printf("interrupt: %v", err)
	}
	time.AfterFunc(interruptGrace, func() {
		k.mu.Lock()
		still := k.running != nil && k.runSeq == seq
		k.mu.Unlock()
		if still {
			k.sup.Kill(fmt.Sprintf("the cell did not stop within %v of the interrupt, so its worker process was killed", interruptGrace))
		}
	})
}

// onCrash runs after the supervisor replaced a dead worker: the cells
// that ran on it become the ones %replay restores.
func (k *Kernel) onCrash(c supervisor.Crash) {
	k.mu.Lock()
	cells, skipped := supervisor.Replayable(k.succeeded, c)
	k.lost = append(cells, k.lost...)
	k.skipped = skipped
	k.succeeded = nil
	inCell := k.sent
	parent := k.lastParent
	k.mu.Unlock()
	if !inCell {
		// No cell to fail: tell the user through the last cell's output.
		e := k.crashError(c)
		k.publish(parent, "stream", map[string]string{"name": "stderr", "text": strings.Join(e.Traceback, "\n") + "\n"})
	}
}

// crashError is the error shown for the cell during which the worker died.
func (k *Kernel) crashError(c supervisor.Crash) *workerproto.CellError {
	k.mu.Lock()
	n, skipped := len(k.lost), k.skipped
	k.mu.Unlock()
	return c.CellError(n, skipped)
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

// pageRequest reports whether code asks for documentation IPython's way,
// "name?" (detail 0) or "name??" (detail 1), and returns the name.
func pageRequest(code string) (name string, detail int, ok bool) {
	s := strings.TrimSpace(code)
	if strings.ContainsAny(s, "\n") || !strings.HasSuffix(s, "?") {
		return "", 0, false
	}
	s = strings.TrimSuffix(s, "?")
	if strings.HasSuffix(s, "?") {
		s, detail = strings.TrimSuffix(s, "?"), 1
	}
	if s == "" {
		return "", 0, false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return "", 0, false
		}
	}
	return s, detail, true
}

// page answers "name?" with the documentation of name in the pager
// payload of the execute_reply, as IPython does.
func (k *Kernel) page(r request, name string, detail int) outcome {
	k.workerMu.Lock()
	ev, err := k.sup.Call(k.ctx, workerproto.Request{Op: workerproto.OpInspect, Code: name, Cursor: len([]rune(name)), DetailLevel: detail}, func(workerproto.Event) {})
	k.workerMu.Unlock()
	if err != nil {
		return outcome{err: &workerproto.CellError{Name: "worker error", Value: err.Error(), Traceback: []string{err.Error()}}}
	}
	if ev.Inspect == nil || !ev.Inspect.Found {
		k.note(r, "No documentation found for "+name+".\n")
		return outcome{}
	}
	return outcome{payload: []any{map[string]any{
		"source": "page", "data": map[string]any{"text/plain": ev.Inspect.Text}, "start": 0,
	}}}
}

// magic reports whether code is one of the magics that the kernel runs
// itself, and its name. Other magics (%time, %who, ...) are the session's.
func magic(code string) (string, bool) {
	switch s := strings.TrimSpace(code); s {
	case "%replay", "%restart":
		return s[1:], true
	}
	return "", false
}

// runMagic runs a magic handled by the kernel itself.
func (k *Kernel) runMagic(r request, name string) outcome {
	switch name {
	case "replay":
		return k.replay(r)
	case "restart":
		k.workerMu.Lock()
		err := k.sup.Restart()
		k.mu.Lock()
		k.succeeded, k.lost = nil, nil
		k.mu.Unlock()
		k.workerMu.Unlock()
		if err != nil {
			return outcome{err: &workerproto.CellError{Name: "worker error", Value: err.Error(), Traceback: []string{err.Error()}}}
		}
		k.note(r, "The Go session was restarted with a fresh state.\n")
		return outcome{}
	}
	panic("kernel: runMagic(" + name + "): not a kernel magic")
}

// replay re-runs on the fresh worker the cells that had succeeded on the
// worker that died, in order, streaming their output. It stops at the
// first failure; what is left stays for the next %replay.
func (k *Kernel) replay(r request) outcome {
	k.mu.Lock()
	n := len(k.lost)
	k.mu.Unlock()
	if n == 0 {
		k.note(r, "Nothing to replay: no worker has died since the session started, or its cells were replayed.\n")
		return outcome{}
	}
	k.note(r, fmt.Sprintf("Replaying %d cells...\n", n))
	for i := 1; ; i++ {
		k.mu.Lock()
		if len(k.lost) == 0 {
			k.mu.Unlock()
			break
		}
		code := k.lost[0]
		k.mu.Unlock()
		out := k.run(r, executeContent{Code: code, Silent: true}, 0, false)
		if out.err != nil {
			out.err.Traceback = append([]string{fmt.Sprintf("%%replay stopped at cell %d of %d:", i, n), code}, out.err.Traceback...)
			return out
		}
		k.mu.Lock()
		// A crash during the replay has moved the list: re-check it.
		if len(k.lost) > 0 && k.lost[0] == code {
			k.lost = k.lost[1:]
			k.succeeded = append(k.succeeded, code)
		}
		k.mu.Unlock()
	}
	k.note(r, "Done: the state is restored.\n")
	return outcome{}
}

// note prints a line from the kernel into the cell's output.
func (k *Kernel) note(r request, text string) {
	k.publish(r.msg.Header, "stream", map[string]string{"name": "stdout", "text": text})
}
