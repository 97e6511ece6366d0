package kernel

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// ProtocolVersion is the version of the Jupyter messaging protocol the
// kernel speaks (kernel_info_reply's protocol_version, every header's
// version); install.KernelProtocolVersion, which the kernelspec
// advertises, must agree (a test checks).
const ProtocolVersion = wire.Version

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
		"protocol_version":       ProtocolVersion,
		"implementation":         "gnnlab",
		"implementation_version": version,
		// The debug protocol (debug.go): JupyterLab reads both.
		"debugger": true,
		// Kernel subshells (JEP 91, subshell.go).
		"supported_features": []string{"debugger", "kernel subshells"},
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

// short returns a context for a short request to the worker, and logs
// its error unless it only says that a cell is running.
func (k *Kernel) short() (context.Context, func(op string, err error)) {
	ctx, cancel := context.WithTimeout(k.ctx, workerTimeout)
	return ctx, func(op string, err error) {
		cancel()
		if err != nil && !errors.Is(err, client.ErrBusy) {
			k.log.Printf("%s: %v", op, err)
		}
	}
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
	ctx, done := k.short()
	matches, start, end, err := k.client.Complete(ctx, c.Code, c.CursorPos)
	done("complete", err)
	if err == nil && matches != nil {
		reply["matches"] = matches
		reply["cursor_start"] = start
		reply["cursor_end"] = end
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
	ctx, done := k.short()
	text, found, err := k.client.Inspect(ctx, c.Code, c.CursorPos, c.DetailLevel)
	done("inspect", err)
	if err == nil && found {
		reply["found"] = true
		reply["data"] = map[string]any{"text/plain": text}
	}
	k.reply(r, "inspect_reply", reply)
}

func (k *Kernel) isComplete(r request) {
	var c codeCursor
	if err := r.msg.DecodeContent(&c); err != nil {
		k.replyBadContent(r, err)
		return
	}
	ctx, done := k.short()
	status, indent, err := k.client.IsComplete(ctx, c.Code)
	done("is_complete", err)
	reply := map[string]any{"status": status}
	if status == "incomplete" {
		reply["indent"] = indent
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
