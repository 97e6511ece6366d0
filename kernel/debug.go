package kernel

import (
	"context"
	"encoding/json"
	"time"
)

// debugTimeout bounds the wait for the worker's answer to a debug
// request; the worker answers them during cells too.
const debugTimeout = 30 * time.Second

// debugRequest relays a request of the Jupyter debug protocol (a DAP
// request in the content) to the worker's debugger and answers with its
// response as debug_reply; the debugger's events (stopped, continued)
// reach the frontend as debug_event on iopub (publishEvent).
func (k *Kernel) debugRequest(r request) {
	var req json.RawMessage
	if err := r.msg.DecodeContent(&req); err != nil {
		k.log.Print(err)
		return
	}
	ctx, cancel := context.WithTimeout(k.ctx, debugTimeout)
	defer cancel()
	resp, err := k.client.Debug(ctx, req)
	if err != nil {
		var in struct {
			Seq     int    `json:"seq"`
			Command string `json:"command"`
		}
		_ = json.Unmarshal(req, &in)
		k.reply(r, "debug_reply", map[string]any{
			"type": "response", "seq": 0, "request_seq": in.Seq, "command": in.Command,
			"success": false, "message": err.Error(), "body": map[string]any{},
		})
		return
	}
	k.reply(r, "debug_reply", json.RawMessage(resp))
}
