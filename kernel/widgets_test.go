package kernel_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/kernel/kerneltest"
)

// The widget tests drive viz/widgets through the real kernel and worker:
// cells make widgets, the test plays the frontend's part of the widget
// protocol (ipywidgets 8, protocol 2.1.0) on the shell and iopub sockets.

const widgetsImport = `import (
	"fmt"
	"github.com/gnnlab/gnnlab/viz/widgets"
)`

// run executes code and fails the test unless it succeeds.
func run(t *testing.T, c *kerneltest.Client, code string) []kerneltest.Message {
	t.Helper()
	reply, out := c.Execute(code, nil)
	if reply.Content["status"] != "ok" {
		t.Fatalf("execute %q: %v %v", code, reply.Content["ename"], reply.Content["evalue"])
	}
	return out
}

// data returns a message's content data as a map.
func data(m kerneltest.Message) map[string]any {
	d, _ := m.Content["data"].(map[string]any)
	return d
}

func state(m kerneltest.Message) map[string]any {
	s, _ := data(m)["state"].(map[string]any)
	return s
}

// widgetOpen returns the comm_open among msgs of the model modelName.
func widgetOpen(t *testing.T, msgs []kerneltest.Message, modelName string) kerneltest.Message {
	t.Helper()
	for _, m := range kerneltest.Filter(msgs, "comm_open") {
		if state(m)["_model_name"] == modelName {
			return m
		}
	}
	t.Fatalf("no comm_open of a %s among %d messages: %v", modelName, len(msgs), msgs)
	return kerneltest.Message{}
}

// commMsg sends data on the comm id as the frontend would and returns the
// iopub messages published under it.
func commMsg(t *testing.T, c *kerneltest.Client, id string, d map[string]any) (string, []kerneltest.Message) {
	t.Helper()
	msgID := c.Send("shell", "comm_msg", map[string]any{"comm_id": id, "data": d})
	out, err := c.IOPubUntilIdle(msgID)
	if err != nil {
		t.Fatalf("comm_msg %v: %v", d, err)
	}
	return msgID, out
}

func update(key string, v any) map[string]any {
	return map[string]any{"method": "update", "state": map[string]any{key: v}, "buffer_paths": []any{}}
}

// methods returns the methods of the comm_msg messages among msgs on comm id.
func methods(msgs []kerneltest.Message, id string) []string {
	var ms []string
	for _, m := range kerneltest.Filter(msgs, "comm_msg") {
		if m.Content["comm_id"] == id {
			ms = append(ms, fmt.Sprint(data(m)["method"]))
		}
	}
	return ms
}

func TestWidgetSlider(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport)
	out := run(t, c, `s := widgets.NewIntSlider("lr", 1, 100, 10)
s.OnChange(func(v int) { fmt.Println("lr =", v) })
s`)

	open := widgetOpen(t, out, "IntSliderModel")
	id := fmt.Sprint(open.Content["comm_id"])
	if open.Content["target_name"] != "jupyter.widget" || open.Metadata["version"] != "2.1.0" {
		t.Errorf("comm_open target %v, metadata %v; want jupyter.widget, version 2.1.0", open.Content["target_name"], open.Metadata)
	}
	st := state(open)
	for k, want := range map[string]any{"value": 10.0, "min": 1.0, "max": 100.0, "description": "lr", "_model_module": "@jupyter-widgets/controls", "_model_module_version": "2.0.0"} {
		if st[k] != want {
			t.Errorf("IntSlider state[%s] = %v, want %v", k, st[k], want)
		}
	}
	if bp, ok := data(open)["buffer_paths"].([]any); !ok || len(bp) != 0 {
		t.Errorf("comm_open buffer_paths = %v, want []", data(open)["buffer_paths"])
	}
	// The layout and style it refers to were opened before it.
	opened := map[string]bool{}
	for _, m := range kerneltest.Filter(out, "comm_open") {
		opened["IPY_MODEL_"+fmt.Sprint(m.Content["comm_id"])] = true
	}
	for _, ref := range []string{"layout", "style"} {
		if !opened[fmt.Sprint(st[ref])] {
			t.Errorf("IntSlider %s = %v, which was not opened", ref, st[ref])
		}
	}
	res := kerneltest.Filter(out, "execute_result")
	if len(res) != 1 {
		t.Fatalf("execute_result: %v, want one", res)
	}
	view, _ := data(res[0])["application/vnd.jupyter.widget-view+json"].(map[string]any)
	if view["model_id"] != id || view["version_major"] != 2.0 {
		t.Errorf("widget view = %v, want model_id %s, version_major 2", view, id)
	}

	// comm_info lists the widget comms.
	infoID := c.Send("shell", "comm_info_request", map[string]any{"target_name": "jupyter.widget"})
	info, err := c.Reply("shell", infoID)
	if err != nil {
		t.Fatal(err)
	}
	comms, _ := info.Content["comms"].(map[string]any)
	if _, ok := comms[id]; !ok || len(comms) != 3 {
		t.Errorf("comm_info_reply comms = %v, want the slider %s and its layout and style", comms, id)
	}

	// The frontend moves the slider: echo_update, then the callback's
	// output, both children of the frontend's message.
	_, got := commMsg(t, c, id, update("value", 42))
	if ms := methods(got, id); !slices.Equal(ms, []string{"echo_update"}) {
		t.Errorf("comm_msg after an update: methods %v, want [echo_update]", ms)
	}
	if s := kerneltest.StreamText(got, "stdout"); s != "lr = 42\n" {
		t.Errorf("callback output = %q, want %q", s, "lr = 42\n")
	}
	if r := kerneltest.Filter(run(t, c, "s.Value()"), "execute_result"); len(r) != 1 || data(r[0])["text/plain"] != "42" {
		t.Errorf("s.Value() after the update = %v, want 42", r)
	}

	// request_state returns the state the frontend set.
	_, got = commMsg(t, c, id, map[string]any{"method": "request_state"})
	ups := kerneltest.Filter(got, "comm_msg")
	if len(ups) != 1 || data(ups[0])["method"] != "update" || state(ups[0])["value"] != 42.0 {
		t.Errorf("request_state answered %v, want an update with value 42", ups)
	}

	// SetValue from a cell sends the value to the frontend and runs the
	// callback; out-of-range values are clamped.
	out = run(t, c, "s.SetValue(1000)")
	ups = kerneltest.Filter(out, "comm_msg")
	if len(ups) != 1 || state(ups[0])["value"] != 100.0 || kerneltest.StreamText(out, "stdout") != "lr = 100\n" {
		t.Errorf("SetValue(1000): comm %v, output %q; want value 100 and lr = 100", ups, kerneltest.StreamText(out, "stdout"))
	}

	// A value the slider cannot hold is refused with a message naming it.
	_, got = commMsg(t, c, id, update("value", "many"))
	if e := kerneltest.StreamText(got, "stderr"); !strings.Contains(e, "update of value") {
		t.Errorf("update with a string value: stderr %q, want an error naming value", e)
	}
}

func TestWidgetControls(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport)
	for _, tc := range []struct {
		name, code, model, key string
		value                  any
		want                   string
	}{
		{"FloatSlider", `w := widgets.NewFloatSlider("x", 0, 1, 0.01, 0.5); w.OnChange(func(v float64) { fmt.Println("got", v) }); w`, "FloatSliderModel", "value", 0.25, "got 0.25\n"},
		{"Dropdown", `w := widgets.NewDropdown("model", []string{"gcn", "gat", "sage"}, "gcn"); w.OnChange(func(v string) { fmt.Println("got", v) }); w`, "DropdownModel", "index", 2, "got sage\n"},
		{"Checkbox", `w := widgets.NewCheckbox("self loops", false); w.OnChange(func(v bool) { fmt.Println("got", v) }); w`, "CheckboxModel", "value", true, "got true\n"},
		{"Text", `w := widgets.NewText("name", ""); w.OnChange(func(v string) { fmt.Println("got", v) }); w`, "TextModel", "value", "cora", "got cora\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := widgetOpen(t, run(t, c, tc.code), tc.model)
			_, got := commMsg(t, c, fmt.Sprint(open.Content["comm_id"]), update(tc.key, tc.value))
			if s := kerneltest.StreamText(got, "stdout"); s != tc.want {
				t.Errorf("%s update %s=%v: callback printed %q, want %q", tc.name, tc.key, tc.value, s, tc.want)
			}
		})
	}

	t.Run("Button", func(t *testing.T) {
		open := widgetOpen(t, run(t, c, `b := widgets.NewButton("train"); b.OnClick(func() { fmt.Println("clicked") }); b`), "ButtonModel")
		_, got := commMsg(t, c, fmt.Sprint(open.Content["comm_id"]), map[string]any{"method": "custom", "content": map[string]any{"event": "click"}})
		if s := kerneltest.StreamText(got, "stdout"); s != "clicked\n" {
			t.Errorf("click: callback printed %q, want %q", s, "clicked\n")
		}
	})

	t.Run("HBox", func(t *testing.T) {
		out := run(t, c, `a, b := widgets.NewCheckbox("a", true), widgets.NewCheckbox("b", false)
widgets.HBox(a, b)`)
		box := widgetOpen(t, out, "HBoxModel")
		var want []string
		for _, m := range kerneltest.Filter(out, "comm_open") {
			if state(m)["_model_name"] == "CheckboxModel" {
				want = append(want, "IPY_MODEL_"+fmt.Sprint(m.Content["comm_id"]))
			}
		}
		kids, _ := state(box)["children"].([]any)
		if fmt.Sprint(kids) != fmt.Sprint(want) || len(want) != 2 {
			t.Errorf("HBox children = %v, want %v", kids, want)
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct{ code, want string }{
			{`widgets.NewIntSlider("n", 5, 1, 3)`, "min 5 is greater than max 1"},
			{`widgets.NewFloatSlider("x", 0, 1, 0, 0.5)`, "step 0 is not positive"},
			{`widgets.NewDropdown("m", []string{"gcn"}, "gat")`, `value "gat" is not one of the options`},
		} {
			out := run(t, c, tc.code)
			res := kerneltest.Filter(out, "execute_result")
			if len(res) != 1 || !strings.Contains(fmt.Sprint(data(res[0])["text/plain"]), tc.want) {
				t.Errorf("%s shows %v, want the error %q", tc.code, res, tc.want)
				continue
			}
			if _, ok := data(res[0])["application/vnd.jupyter.widget-view+json"]; ok {
				t.Errorf("%s shows a widget view; want only the error", tc.code)
			}
			if len(kerneltest.Filter(out, "comm_open")) != 0 {
				t.Errorf("%s opened a comm", tc.code)
			}
		}
	})
}

// TestWidgetOutput checks that Output captures a callback's output under
// the frontend's message (the msg_id the frontend routes into the area),
// and that Interact reruns its function on a change.
func TestWidgetOutput(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport)
	out := run(t, c, `n := widgets.NewIntSlider("n", 0, 10, 1)
box := widgets.Interact(func() { fmt.Println("n is", n.Value()) }, n)
box`)
	slider := fmt.Sprint(widgetOpen(t, out, "IntSliderModel").Content["comm_id"])
	area := widgetOpen(t, out, "OutputModel")
	areaID := fmt.Sprint(area.Content["comm_id"])
	vbox := widgetOpen(t, out, "VBoxModel")
	if kids := fmt.Sprint(state(vbox)["children"]); kids != fmt.Sprintf("[IPY_MODEL_%s IPY_MODEL_%s]", slider, areaID) {
		t.Errorf("Interact box children = %s, want the slider then the output", kids)
	}
	// The first run, inside the cell, is captured under the cell's msg_id.
	var cellMsgIDs []string
	for _, m := range kerneltest.Filter(out, "comm_msg") {
		if m.Content["comm_id"] == areaID {
			cellMsgIDs = append(cellMsgIDs, fmt.Sprint(state(m)["msg_id"]))
		}
	}
	if len(cellMsgIDs) != 2 || cellMsgIDs[0] != out[0].ParentID || cellMsgIDs[1] != "" {
		t.Errorf("Output msg_id during the cell = %q, want [the cell's msg_id, \"\"]", cellMsgIDs)
	}
	if s := kerneltest.StreamText(out, "stdout"); s != "n is 1\n" {
		t.Errorf("Interact's first run printed %q, want %q", s, "n is 1\n")
	}

	msgID, got := commMsg(t, c, slider, update("value", 7))
	// In order: the output area takes the message's msg_id, is cleared,
	// gets the print, and lets go.
	var seq []string
	for _, m := range got {
		switch {
		case m.MsgType == "comm_msg" && m.Content["comm_id"] == areaID:
			seq = append(seq, "msg_id="+fmt.Sprint(state(m)["msg_id"]))
		case m.MsgType == "clear_output":
			seq = append(seq, "clear")
		case m.MsgType == "stream":
			seq = append(seq, "print "+fmt.Sprint(m.Content["text"]))
		}
	}
	want := []string{"msg_id=" + msgID, "clear", "print n is 7\n", "msg_id="}
	if !slices.Equal(seq, want) {
		t.Errorf("after moving the slider: %q, want %q", seq, want)
	}
}

// TestWidgetDuringCell moves a slider while a cell runs: the running loop
// reads the new value.
func TestWidgetDuringCell(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport+"\nimport \"time\"")
	out := run(t, c, `s := widgets.NewIntSlider("stop at", 0, 100, 0)
s`)
	id := fmt.Sprint(widgetOpen(t, out, "IntSliderModel").Content["comm_id"])
	cell := c.Send("shell", "execute_request", map[string]any{"code": `fmt.Println("waiting")
deadline := time.Now().Add(20 * time.Second)
for s.Value() != 77 && time.Now().Before(deadline) {
	time.Sleep(5 * time.Millisecond)
}
fmt.Println("saw", s.Value())`, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true})
	// Wait until the loop runs, then move the slider.
	var cellOut []kerneltest.Message
	for !strings.Contains(kerneltest.StreamText(cellOut, "stdout"), "waiting") {
		select {
		case m := <-c.Inbox("iopub"):
			if m.ParentID == cell {
				cellOut = append(cellOut, m)
			}
		case <-time.After(kerneltest.Timeout):
			t.Fatal("the cell did not start")
		}
	}
	upd := c.Send("shell", "comm_msg", map[string]any{"comm_id": id, "data": update("value", 77)})
	reply, err := c.Reply("shell", cell)
	if err != nil || reply.Content["status"] != "ok" {
		t.Fatalf("cell: %v %v", reply.Content, err)
	}
	for {
		select {
		case m := <-c.Inbox("iopub"):
			if m.ParentID == cell {
				cellOut = append(cellOut, m)
			}
			if m.ParentID == upd && m.MsgType == "comm_msg" && data(m)["method"] != "echo_update" {
				t.Errorf("comm_msg %v under the update, want only echo_update", data(m))
			}
			if m.ParentID == cell && m.MsgType == "status" && m.Content["execution_state"] == "idle" {
				if s := kerneltest.StreamText(cellOut, "stdout"); s != "waiting\nsaw 77\n" {
					t.Errorf("cell printed %q, want %q", s, "waiting\nsaw 77\n")
				}
				return
			}
		case <-time.After(kerneltest.Timeout):
			t.Fatal("no idle status after the cell")
		}
	}
}

// TestWidgetControlComm plays a reloaded page: it opens the control comm
// and asks for the state of every widget.
func TestWidgetControlComm(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport)
	out := run(t, c, `t := widgets.NewText("name", "cora"); t`)
	id := fmt.Sprint(widgetOpen(t, out, "TextModel").Content["comm_id"])

	openID := c.Send("shell", "comm_open", map[string]any{"comm_id": "control-1", "target_name": "jupyter.widget.control", "data": map[string]any{}})
	got, err := c.IOPubUntilIdle(openID)
	if err != nil {
		t.Fatal(err)
	}
	if cl := kerneltest.Filter(got, "comm_close"); len(cl) != 0 {
		t.Fatalf("the control comm was closed: %v", cl)
	}
	_, got = commMsg(t, c, "control-1", map[string]any{"method": "request_states"})
	msgs := kerneltest.Filter(got, "comm_msg")
	if len(msgs) != 1 || data(msgs[0])["method"] != "update_states" {
		t.Fatalf("request_states answered %v, want one update_states", msgs)
	}
	states, _ := data(msgs[0])["states"].(map[string]any)
	text, _ := states[id].(map[string]any)
	if text["value"] != "cora" || text["_model_name"] != "TextModel" {
		t.Errorf("update_states[%s] = %v, want the Text with value cora", id, text)
	}
	var names []string
	for _, s := range states {
		names = append(names, fmt.Sprint(s.(map[string]any)["_model_name"]))
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[LayoutModel TextModel TextStyleModel]" {
		t.Errorf("update_states models = %v, want the Text, its layout and its style", names)
	}
}

// BenchmarkWidgetRoundTrip times what a user sees when moving a slider:
// the frontend's update on the shell socket, the Go callback in the
// worker, and its printed output back on iopub. It reports the median
// (p50-ms) and the 90th percentile (p90-ms) of the round trips.
func BenchmarkWidgetRoundTrip(b *testing.B) {
	c := kerneltest.Start(b, kerneltest.Options{WorkerCommand: workerCmd})
	reply, out := c.Execute(widgetsImport+"\n"+`s := widgets.NewIntSlider("lr", 0, 1000000, 0)
s.OnChange(func(v int) { fmt.Println("lr =", v) })
s`, nil)
	if reply.Content["status"] != "ok" {
		b.Fatalf("cell: %v", reply.Content)
	}
	var id string
	for _, m := range kerneltest.Filter(out, "comm_open") {
		if state(m)["_model_name"] == "IntSliderModel" {
			id = fmt.Sprint(m.Content["comm_id"])
		}
	}
	if id == "" {
		b.Fatal("no IntSlider comm_open")
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		want := fmt.Sprintf("lr = %d\n", i+1)
		start := time.Now()
		msgID := c.Send("shell", "comm_msg", map[string]any{"comm_id": id, "data": update("value", i+1)})
		var got time.Duration
		for got == 0 {
			select {
			case m := <-c.Inbox("iopub"):
				if m.ParentID == msgID && m.MsgType == "stream" && m.Content["text"] == want {
					got = time.Since(start)
				}
			case <-time.After(kerneltest.Timeout):
				b.Fatalf("no output %q", want)
			}
		}
		times = append(times, got)
		// Let the message finish (its idle status) before the next one.
		if _, err := c.IOPubUntilIdle(msgID); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(times)
	ms := func(q float64) float64 {
		return float64(times[int(q*float64(len(times)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.9), "p90-ms")
}

// TestWidgetRestart checks that the widgets of a session that is gone are
// closed on the page and leave comm_info: %restart, then a crash.
func TestWidgetRestart(t *testing.T) {
	c := start(t, "tcp")
	for _, tc := range []struct{ name, end string }{
		{"restart", "%restart"},
		// A panic in a goroutine kills the worker (os.Exit only ends the cell).
		{"crash", `import "time"
go func() { panic("boom") }()
time.Sleep(20 * time.Second)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, c, widgetsImport)
			out := run(t, c, `widgets.NewCheckbox("x", true)`)
			var ids []string
			for _, m := range kerneltest.Filter(out, "comm_open") {
				ids = append(ids, fmt.Sprint(m.Content["comm_id"]))
			}
			_, out = c.Execute(tc.end, nil)
			var closed []string
			for _, m := range kerneltest.Filter(out, "comm_close") {
				closed = append(closed, fmt.Sprint(m.Content["comm_id"]))
			}
			sort.Strings(ids)
			sort.Strings(closed)
			if len(ids) != 3 || !slices.Equal(closed, ids) {
				t.Errorf("after %s: comm_close for %v, want the widget's comms %v", tc.name, closed, ids)
			}
			infoID := c.Send("shell", "comm_info_request", map[string]any{})
			info, err := c.Reply("shell", infoID)
			if err != nil {
				t.Fatal(err)
			}
			if comms, _ := info.Content["comms"].(map[string]any); len(comms) != 0 {
				t.Errorf("comm_info after %s = %v, want none", tc.name, comms)
			}
		})
	}
}

// TestWidgetRunawayCallback clicks a button whose callback never returns:
// the kernel still answers on shell, cells still run, and %restart ends
// the callback with its session.
func TestWidgetRunawayCallback(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport)
	open := widgetOpen(t, run(t, c, `b := widgets.NewButton("spin"); b.OnClick(func() { for {} }); b`), "ButtonModel")
	c.Send("shell", "comm_msg", map[string]any{"comm_id": open.Content["comm_id"], "data": map[string]any{"method": "custom", "content": map[string]any{"event": "click"}}})
	id := c.Send("shell", "kernel_info_request", map[string]any{})
	if _, err := c.Reply("shell", id); err != nil {
		t.Fatalf("kernel_info while a callback spins: %v", err)
	}
	if r := kerneltest.Filter(run(t, c, "1 + 2"), "execute_result"); len(r) != 1 || data(r[0])["text/plain"] != "3" {
		t.Errorf("a cell while a callback spins: %v, want 3", r)
	}
	out := run(t, c, "%restart")
	if cl := kerneltest.Filter(out, "comm_close"); len(cl) != 3 {
		t.Errorf("%%restart closed %d comms, want the button and its layout and style: %v", len(cl), cl)
	}
}
