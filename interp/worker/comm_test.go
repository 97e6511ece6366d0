package worker

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// served is a Serve over pipes with comms on, as the kernel runs it.
type served struct {
	t              *testing.T
	reqW           *io.PipeWriter
	events         chan workerproto.Event
	stdout, stderr *syncBuf
}

func serveComms(t *testing.T) *served {
	t.Helper()
	reqR, reqW := io.Pipe()
	evR, evW := io.Pipe()
	sv := &served{t: t, reqW: reqW, events: make(chan workerproto.Event, 64),
		stdout: &syncBuf{b: new(bytes.Buffer)}, stderr: &syncBuf{b: new(bytes.Buffer)}}
	go func() {
		_ = Serve(reqR, evW, ServeOptions{Stdout: sv.stdout, Stderr: sv.stderr, Comms: true})
		evW.Close()
	}()
	t.Cleanup(func() { reqW.Close() })
	go func() {
		defer close(sv.events)
		for {
			var ev workerproto.Event
			if err := workerproto.ReadFrame(evR, &ev); err != nil {
				return
			}
			sv.events <- ev
		}
	}()
	select {
	case ev := <-sv.events:
		if ev.Kind != workerproto.EvReady {
			t.Fatalf("first event = %+v, want ready", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no ready event from Serve within 30 s")
	}
	return sv
}

func (sv *served) send(req workerproto.Request) {
	sv.t.Helper()
	writeRequest(sv.t, sv.reqW, req)
}

// until collects events up to the EvDone of each of ids.
func (sv *served) until(ids ...uint64) []workerproto.Event {
	sv.t.Helper()
	var got []workerproto.Event
	left := map[uint64]bool{}
	for _, id := range ids {
		left[id] = true
	}
	for len(left) > 0 {
		select {
		case ev, ok := <-sv.events:
			if !ok {
				sv.t.Fatal("event stream ended")
			}
			got = append(got, ev)
			if ev.Kind == workerproto.EvDone {
				delete(left, ev.ID)
			}
		case <-time.After(30 * time.Second):
			sv.t.Fatalf("no done for requests %v within 30s; got %+v", left, got)
		}
	}
	return got
}

// waitStdout waits until the cells' standard output holds s.
func (sv *served) waitStdout(s string) {
	sv.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(sv.stdout.String(), s); {
		if time.Now().After(deadline) {
			sv.t.Fatalf("stdout never held %q; stdout %q, stderr %q", s, sv.stdout.String(), sv.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestServeComms delivers a widget update while a cell runs: the loop in
// the cell sees the value, the echo belongs to the comm request (not to
// the cell), and both requests end with their EvDone.
func TestServeComms(t *testing.T) {
	sv := serveComms(t)
	send, until := sv.send, sv.until
	send(workerproto.Request{ID: 1, Op: workerproto.OpExecute, Code: `import "github.com/gnnlab/gnnlab/viz/widgets"
s := widgets.NewIntSlider("n", 0, 10, 0)`})
	var slider string
	for _, ev := range until(1) {
		if ev.Kind == workerproto.EvError {
			t.Fatalf("cell: %+v", ev.Error)
		}
		if ev.Kind != workerproto.EvComm || ev.Comm.Type != workerproto.CommOpen {
			continue
		}
		if ev.ID != 1 {
			t.Errorf("comm_open of the cell's widget has ID %d, want the cell's 1", ev.ID)
		}
		var d struct {
			State map[string]any `json:"state"`
		}
		if err := json.Unmarshal(ev.Comm.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.State["_model_name"] == "IntSliderModel" {
			slider = ev.Comm.ID
		}
	}
	if slider == "" {
		t.Fatal("no comm_open of the IntSlider")
	}

	send(workerproto.Request{ID: 2, Op: workerproto.OpExecute, MsgID: "cell-2", Code: `import ("fmt"; "time")
fmt.Println("started")
deadline := time.Now().Add(20 * time.Second)
for s.Value() != 5 && time.Now().Before(deadline) {
	time.Sleep(time.Millisecond)
}
s.Value()`})
	sv.waitStdout("started")
	send(workerproto.Request{ID: 3, Op: workerproto.OpComm, Comm: &workerproto.CommMsg{
		Type: workerproto.CommMessage, ID: slider, MsgID: "m3",
		Data: json.RawMessage(`{"method":"update","state":{"value":5},"buffer_paths":[]}`),
	}})
	var echo, result bool
	for _, ev := range until(2, 3) {
		switch {
		case ev.Kind == workerproto.EvComm:
			echo = true
			if ev.ID != 3 || ev.Comm.MsgID != "m3" || !strings.Contains(string(ev.Comm.Data), "echo_update") {
				t.Errorf("comm event %+v (data %s), want the echo_update of request 3 answering m3", ev, ev.Comm.Data)
			}
		case ev.Kind == workerproto.EvResult:
			result = true
			if ev.ID != 2 || ev.Bundle.Text() != "5" {
				t.Errorf("result %+v, want the cell's 5", ev)
			}
		case ev.Kind == workerproto.EvDone && ev.Error != nil:
			t.Errorf("request %d failed: %+v", ev.ID, ev.Error)
		}
	}
	if !echo || !result {
		t.Errorf("echo %v, result %v; want both", echo, result)
	}
}
