package worker

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// TestMurmur2 checks the cells' file names against the hash of
// JupyterLab 4.6's debugger: the values were computed by its function in
// the installed jlab_core bundle, run in node with this seed.
func TestMurmur2(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint32
	}{
		{"", 3990065800},
		{"a", 2167009006},
		{"ab", 2805137849},
		{"abc", 3350977461},
		{"x := 1\ny := x + 1\nfmt.Println(y)", 2249414802},
		{"héllo, 世界", 3039637217},
	} {
		if got := murmur2([]byte(c.in), hashSeed); got != c.want {
			t.Errorf("murmur2(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestDebugProtocol drives the worker's debugger in-process: a cell
// stops at a breakpoint set on its dumped file, and the stack, the
// variables (a slice expanded by its reference) and continue answer.
func TestDebugProtocol(t *testing.T) {
	if raceEnabled {
		t.Skip("sessions are not debuggable under -race (interp/internal/debug/racebuild_on.go)")
	}
	reqR, reqW := io.Pipe()
	evR, evW := io.Pipe()
	out := &syncBuf{b: new(bytes.Buffer)}
	go func() {
		_ = Serve(reqR, evW, ServeOptions{Stdout: out, Stderr: out, Debug: true})
		evW.Close()
	}()
	defer reqW.Close()
	events := make(chan workerproto.Event, 64)
	go func() {
		defer close(events)
		for {
			var ev workerproto.Event
			if err := workerproto.ReadFrame(evR, &ev); err != nil {
				return
			}
			events <- ev
		}
	}()
	// next returns the first event that matches, earlier ones that did not
	// match included: the cell's done event may come before the reply to
	// the continue that ended it, and must not be lost.
	var backlog []workerproto.Event
	next := func(match func(workerproto.Event) bool) workerproto.Event {
		t.Helper()
		for k, ev := range backlog {
			if match(ev) {
				backlog = append(backlog[:k], backlog[k+1:]...)
				return ev
			}
		}
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatal("event stream ended")
				}
				if match(ev) {
					return ev
				}
				backlog = append(backlog, ev)
			case <-time.After(20 * time.Second):
				t.Fatal("no event within 20s")
			}
		}
	}
	var id uint64 = 100
	dap := func(command string, args any) map[string]any {
		t.Helper()
		id++
		raw, _ := json.Marshal(map[string]any{"seq": id, "type": "request", "command": command, "arguments": args})
		writeRequest(t, reqW, workerproto.Request{ID: id, Op: workerproto.OpDebug, Debug: raw})
		ev := next(func(ev workerproto.Event) bool { return ev.ID == id && ev.Kind == workerproto.EvDone })
		var resp map[string]any
		if err := json.Unmarshal(ev.Debug, &resp); err != nil {
			t.Fatalf("%s: response %q: %v", command, ev.Debug, err)
		}
		if resp["success"] != true || resp["command"] != command {
			t.Fatalf("%s: response %v", command, resp)
		}
		body, _ := resp["body"].(map[string]any)
		return body
	}
	next(func(ev workerproto.Event) bool { return ev.Kind == workerproto.EvReady })

	dap("initialize", map[string]any{"adapterID": "gnnlab"})
	dap("attach", map[string]any{})
	ev := next(func(ev workerproto.Event) bool { return ev.Kind == workerproto.EvDebug })
	if !strings.Contains(string(ev.Debug), `"event":"initialized"`) {
		t.Errorf("event after attach: %s, want initialized", ev.Debug)
	}
	cell := "xs := []int{4, 5}\nn := len(xs)\n_ = n"
	path := dap("dumpCell", map[string]any{"code": cell})["sourcePath"].(string)
	if want := filepath.Join(os.TempDir(), "gnnlab-debug-"+strconv.Itoa(os.Getpid()), strconv.FormatUint(uint64(murmur2([]byte(cell), hashSeed)), 10)+".go"); path != want {
		t.Errorf("dumpCell path %q, want %q", path, want)
	}
	dap("setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": []map[string]any{{"line": 2}}})
	writeRequest(t, reqW, workerproto.Request{ID: 1, Op: workerproto.OpExecute, Code: cell})
	ev = next(func(ev workerproto.Event) bool { return ev.Kind == workerproto.EvDebug })
	var stopped struct {
		Event string         `json:"event"`
		Body  map[string]any `json:"body"`
	}
	if err := json.Unmarshal(ev.Debug, &stopped); err != nil || stopped.Event != "stopped" {
		t.Fatalf("debug event %s (%v), want stopped", ev.Debug, err)
	}
	frames := dap("stackTrace", map[string]any{"threadId": 1})["stackFrames"].([]any)
	top := frames[0].(map[string]any)
	if top["line"] != 2.0 || top["source"].(map[string]any)["path"] != path {
		t.Fatalf("top frame %v, want line 2 of %s", top, path)
	}
	scopes := dap("scopes", map[string]any{"frameId": top["id"]})["scopes"].([]any)
	var globals float64
	for _, s := range scopes {
		if s := s.(map[string]any); s["name"] == "Globals" {
			globals = s["variablesReference"].(float64)
		}
	}
	vars := dap("variables", map[string]any{"variablesReference": globals})["variables"].([]any)
	var xs map[string]any
	for _, v := range vars {
		if v := v.(map[string]any); v["name"] == "xs" {
			xs = v
		}
	}
	if xs == nil || xs["value"] != "[4 5]" || xs["type"] != "[]int" || xs["variablesReference"].(float64) == 0 {
		t.Fatalf("Globals %v, want xs = [4 5] with a reference", vars)
	}
	elems := dap("variables", map[string]any{"variablesReference": xs["variablesReference"]})["variables"].([]any)
	if len(elems) != 2 || elems[1].(map[string]any)["value"] != "5" {
		t.Errorf("xs expanded: %v, want 4 and 5", elems)
	}
	if src := dap("source", map[string]any{"source": map[string]any{"path": path}}); src["content"] != cell {
		t.Errorf("source of %s: %v, want the cell", path, src)
	}
	// Next: the frontend must hear that the thread went on before it
	// hears of the stop at line 3, or it takes the thread for running
	// (JupyterLab then greys out Continue).
	dap("next", map[string]any{"threadId": 1})
	debugEvent := func() string {
		t.Helper()
		ev := next(func(ev workerproto.Event) bool { return ev.Kind == workerproto.EvDebug })
		var e struct {
			Event string `json:"event"`
		}
		if err := json.Unmarshal(ev.Debug, &e); err != nil {
			t.Fatalf("debug event %s: %v", ev.Debug, err)
		}
		return e.Event
	}
	if first, second := debugEvent(), debugEvent(); first != "continued" || second != "stopped" {
		t.Fatalf("events after next: %s, %s; want continued, stopped", first, second)
	}
	frames = dap("stackTrace", map[string]any{"threadId": 1})["stackFrames"].([]any)
	if top := frames[0].(map[string]any); top["line"] != 3.0 {
		t.Fatalf("after next, top frame %v, want line 3", top)
	}
	dap("continue", map[string]any{"threadId": 1})
	done := next(func(ev workerproto.Event) bool { return ev.ID == 1 && ev.Kind == workerproto.EvDone })
	if done.Error != nil {
		t.Fatalf("cell: %+v", done.Error)
	}
	if info := dap("debugInfo", map[string]any{}); info["isStarted"] != true || len(info["stoppedThreads"].([]any)) != 0 {
		t.Errorf("debugInfo after the cell: %v", info)
	}
	dap("disconnect", map[string]any{})
}
