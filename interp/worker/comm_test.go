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

// TestServeComms delivers a widget update while a cell runs: the loop in
// the cell sees the value, the echo belongs to the comm request (not to
// the cell), and both requests end with their EvDone.
func TestServeComms(t *testing.T) {
	reqR, reqW := io.Pipe()
	evR, evW := io.Pipe()
	stdout, stderr := &syncBuf{b: new(bytes.Buffer)}, &syncBuf{b: new(bytes.Buffer)}
	go func() {
		_ = Serve(reqR, evW, ServeOptions{Stdout: stdout, Stderr: stderr, Comms: true})
		evW.Close()
	}()
	t.Cleanup(func() { reqW.Close() })
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
	send := func(req workerproto.Request) {
		t.Helper()
		if err := workerproto.WriteFrame(reqW, req); err != nil {
			t.Fatal(err)
		}
	}
	// until collects events up to the EvDone of each of ids.
	until := func(ids ...uint64) []workerproto.Event {
		t.Helper()
		var got []workerproto.Event
		left := map[uint64]bool{}
		for _, id := range ids {
			left[id] = true
		}
		for len(left) > 0 {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatal("event stream ended")
				}
				got = append(got, ev)
				if ev.Kind == workerproto.EvDone {
					delete(left, ev.ID)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no done for requests %v within 30s; got %+v", left, got)
			}
		}
		return got
	}
	if ev := <-events; ev.Kind != workerproto.EvReady {
		t.Fatalf("first event = %+v, want ready", ev)
	}
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
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stdout.String(), "started"); {
		if time.Now().After(deadline) {
			t.Fatalf("the cell did not start; stdout %q, stderr %q", stdout.String(), stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
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
