package kernel

import (
	"context"
	"runtime"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// workerTimeout bounds how long completion and inspection wait for the
// worker before answering without it.
const workerTimeout = 5 * time.Second

func (k *Kernel) kernelInfo() map[string]any {
	version := k.opts.Version
	if version == "" {
		version = "devel"
	}
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       "5.3",
		"implementation":         "gnnlab",
		"implementation_version": version,
		"language_info": map[string]any{
			"name":            "go",
			"version":         goVersion,
			"mimetype":        "text/x-go",
			"file_extension":  ".go",
			"pygments_lexer":  "go",
			"codemirror_mode": "go",
		},
		"banner": "gnnlab " + version + ": Go " + goVersion + " (yaegi interpreter) for deep learning on graphs.\n" +
			"Magics: %replay re-runs the cells lost when the worker died; %restart starts a fresh session.",
		"help_links": []map[string]string{
			{"text": "Go documentation", "url": "https://go.dev/doc/"},
			{"text": "Go standard library", "url": "https://pkg.go.dev/std"},
			{"text": "gnnlab README", "url": "https://github.com/gnnlab/gnnlab#readme"},
		},
	}
}

// askWorker runs a short request on the worker if it is idle; ok is false
// when a cell is running or the worker does not answer in time.
func (k *Kernel) askWorker(req workerproto.Request) (workerproto.Event, bool) {
	if !k.workerMu.TryLock() {
		return workerproto.Event{}, false
	}
	defer k.workerMu.Unlock()
	ctx, cancel := context.WithTimeout(k.ctx, workerTimeout)
	defer cancel()
	ev, err := k.sup.Call(ctx, req, func(workerproto.Event) {})
	if err != nil {
		k.log.Printf("%s: %v", req.Op, err)
		return ev, false
	}
	return ev, true
}

type codeCursor struct {
	Code        string `json:"code"`
	CursorPos   int    `json:"cursor_pos"`
	DetailLevel int    `json:"detail_level"`
}

func (k *Kernel) complete(r request) {
	var c codeCursor
	if err := r.msg.DecodeContent(&c); err != nil {
		k.replyBadContent(r, err)
		return
	}
	reply := map[string]any{"status": "ok", "matches": []string{}, "cursor_start": c.CursorPos, "cursor_end": c.CursorPos, "metadata": map[string]any{}}
	if ev, ok := k.askWorker(workerproto.Request{Op: workerproto.OpComplete, Code: c.Code, Cursor: c.CursorPos}); ok && ev.Complete != nil {
		reply["matches"] = ev.Complete.Matches
		reply["cursor_start"] = ev.Complete.CursorStart
		reply["cursor_end"] = ev.Complete.CursorEnd
	}
	k.reply(r, "complete_reply", reply)
}

func (k *Kernel) inspect(r request) {
	var c codeCursor
	if err := r.msg.DecodeContent(&c); err != nil {
		k.replyBadContent(r, err)
		return
	}
	reply := map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}
	ev, ok := k.askWorker(workerproto.Request{Op: workerproto.OpInspect, Code: c.Code, Cursor: c.CursorPos, DetailLevel: c.DetailLevel})
	if ok && ev.Inspect != nil && ev.Inspect.Found {
		reply["found"] = true
		reply["data"] = map[string]any{"text/plain": ev.Inspect.Text}
	}
	k.reply(r, "inspect_reply", reply)
}

func (k *Kernel) isComplete(r request) {
	var c codeCursor
	if err := r.msg.DecodeContent(&c); err != nil {
		k.replyBadContent(r, err)
		return
	}
	reply := map[string]any{"status": "unknown"}
	_, _, isPage := pageRequest(c.Code)
	if _, isMagic := magic(c.Code); isMagic || isPage {
		// Kernel magics and pager requests are one complete line.
		reply["status"] = "complete"
	} else if ev, ok := k.askWorker(workerproto.Request{Op: workerproto.OpIsComplete, Code: c.Code}); ok && ev.IsComplete != nil {
		reply["status"] = ev.IsComplete.Status
		if ev.IsComplete.Status == "incomplete" {
			reply["indent"] = ev.IsComplete.Indent
		}
	}
	k.reply(r, "is_complete_reply", reply)
}

func (k *Kernel) history(r request) {
	var c historyRequest
	if err := r.msg.DecodeContent(&c); err != nil {
		k.replyBadContent(r, err)
		return
	}
	k.reply(r, "history_reply", map[string]any{"status": "ok", "history": k.hist.query(c)})
}
