package worker

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// TestCallbackOutputRouting moves a slider while a cell prints in a loop:
// what the slider's callback prints (stdout and stderr) leaves as EvStream
// events of the comm request and nothing else does, the callback's
// Capture names the comm message, and the cell's lines stay on the pipe.
func TestCallbackOutputRouting(t *testing.T) {
	sv := serveComms(t)
	sv.send(workerproto.Request{ID: 1, Op: workerproto.OpExecute, MsgID: "cell-1", Code: `import (
	"fmt"
	"os"
	"time"
	"github.com/gnnlab/gnnlab/viz/widgets"
)
s := widgets.NewIntSlider("n", 0, 10, 0)
stop := widgets.NewIntSlider("stop", 0, 1, 0)
out := widgets.NewOutput()
s.OnChange(func(v int) {
	out.Capture(func() {
		for i := 0; i < 5; i++ {
			fmt.Println("callback", v, i)
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Fprintln(os.Stderr, "callback on stderr ✓")
	})
})`})
	var slider, stop, area string
	for _, ev := range sv.until(1) {
		if ev.Kind == workerproto.EvError {
			t.Fatalf("cell: %+v", ev.Error)
		}
		if ev.Kind != workerproto.EvComm || ev.Comm.Type != workerproto.CommOpen {
			continue
		}
		var d struct {
			State map[string]any `json:"state"`
		}
		if err := json.Unmarshal(ev.Comm.Data, &d); err != nil {
			t.Fatal(err)
		}
		switch d.State["_model_name"] {
		case "IntSliderModel":
			if slider == "" {
				slider = ev.Comm.ID
			} else {
				stop = ev.Comm.ID
			}
		case "OutputModel":
			area = ev.Comm.ID
		}
	}
	if slider == "" || stop == "" || area == "" {
		t.Fatalf("comm_open of slider %q, stop %q, output %q; want all three", slider, stop, area)
	}

	sv.send(workerproto.Request{ID: 2, Op: workerproto.OpExecute, MsgID: "cell-2", Code: `for i := 0; stop.Value() == 0 && i < 20000; i++ {
	fmt.Println("tick", i)
	time.Sleep(time.Millisecond)
}`})
	sv.waitStdout("tick 0\n")
	update := func(id uint64, comm string, v int) {
		sv.send(workerproto.Request{ID: id, Op: workerproto.OpComm, Comm: &workerproto.CommMsg{
			Type: workerproto.CommMessage, ID: comm, MsgID: fmt.Sprint("m", id),
			Data: json.RawMessage(fmt.Sprintf(`{"method":"update","state":{"value":%d},"buffer_paths":[]}`, v)),
		}})
	}
	atSend := strings.Count(sv.stdout.String(), "tick")
	update(3, slider, 7)
	got := sv.until(3)
	atDone := strings.Count(sv.stdout.String(), "tick")
	sv.waitStdout(fmt.Sprintf("tick %d\n", atDone+1)) // the cell goes on after it
	update(4, stop, 1)
	got = append(got, sv.until(2, 4)...)

	var streamed [2]strings.Builder
	var capture []string
	for _, ev := range got {
		switch {
		case ev.Kind == workerproto.EvStream:
			if ev.ID != 3 {
				t.Errorf("EvStream %q of request %d, want only the callback's (3)", ev.Text, ev.ID)
				continue
			}
			switch ev.Stream {
			case "stdout":
				streamed[0].WriteString(ev.Text)
			case "stderr":
				streamed[1].WriteString(ev.Text)
			default:
				t.Errorf("EvStream on stream %q", ev.Stream)
			}
		case ev.Kind == workerproto.EvComm && ev.Comm.ID == area:
			var d struct {
				State map[string]any `json:"state"`
			}
			if err := json.Unmarshal(ev.Comm.Data, &d); err != nil {
				t.Fatal(err)
			}
			if id, ok := d.State["msg_id"]; ok {
				if ev.ID != 3 {
					t.Errorf("Output msg_id %v set by request %d, want the callback's (3)", id, ev.ID)
				}
				capture = append(capture, id.(string))
			}
		case ev.Kind == workerproto.EvDone && ev.Error != nil:
			t.Errorf("request %d failed: %+v", ev.ID, ev.Error)
		}
	}
	want := "callback 7 0\ncallback 7 1\ncallback 7 2\ncallback 7 3\ncallback 7 4\n"
	if s := streamed[0].String(); s != want {
		t.Errorf("the callback's stdout events = %q, want %q", s, want)
	}
	if s := streamed[1].String(); s != "callback on stderr ✓\n" {
		t.Errorf("the callback's stderr events = %q, want %q", s, "callback on stderr ✓\n")
	}
	if strings.Join(capture, ",") != "m3," {
		t.Errorf("Output msg_id during the callback = %q, want [m3, \"\"]", capture)
	}
	out := syncMarks.ReplaceAllString(sv.stdout.String(), "")
	if strings.Contains(out, "callback") || strings.Contains(sv.stderr.String(), "callback") {
		t.Errorf("the callback's output reached the cell's pipes: stdout %q, stderr %q", out, sv.stderr.String())
	}
	// The cell kept printing while the callback ran, and all of its lines
	// are on the pipe, in order.
	if atDone <= atSend {
		t.Errorf("the cell printed %d ticks before the update and %d by the callback's end; want it printing while the callback ran", atSend, atDone)
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if want := "tick " + strconv.Itoa(i); line != want {
			t.Fatalf("cell's line %d = %q, want %q", i, line, want)
		}
	}
}

// syncMarks matches the sync marks that the worker writes to its pipes.
var syncMarks = regexp.MustCompile("\x00gnnlab-sync-[0-9a-f]{16}\x00")
