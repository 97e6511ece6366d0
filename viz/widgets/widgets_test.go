package widgets

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/viz/comm"
	"github.com/gnnlab/gnnlab/viz/display"
)

// frontend is a fake transport standing for JupyterLab: it keeps what the
// session sends, and sends messages back through comm.Deliver as the
// kernel's relay does.
type frontend struct {
	mu     sync.Mutex
	sent   []comm.Msg
	parent string
	fail   error // returned by Send when set
}

func (f *frontend) Send(m comm.Msg) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.sent = append(f.sent, m)
	return nil
}

func (f *frontend) Parent() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.parent
}

// take returns the messages sent since the last take.
func (f *frontend) take() []comm.Msg {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sent
	f.sent = nil
	return s
}

// deliver sends a comm_msg of the frontend to comm id.
func (f *frontend) deliver(t *testing.T, id, msgID string, data any) {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := comm.Deliver(comm.Msg{Type: comm.TypeMsg, ID: id, Data: raw, MsgID: msgID}); err != nil {
		t.Fatalf("Deliver to %s: %v", id, err)
	}
}

func connect(t *testing.T) *frontend {
	f := &frontend{parent: "cell-1"}
	comm.SetTransport(f)
	t.Cleanup(func() {
		comm.SetTransport(nil)
		comm.Reset()
		registry.Lock()
		registry.models = map[string]*model{}
		registry.Unlock()
	})
	return f
}

// sentData is the decoded data of a message to the frontend.
type sentData struct {
	Method string         `json:"method"`
	State  map[string]any `json:"state"`
	States map[string]any `json:"states"`
}

func decode(t *testing.T, m comm.Msg) sentData {
	t.Helper()
	var d sentData
	if err := json.Unmarshal(m.Data, &d); err != nil {
		t.Fatalf("message %s: %v", m.Data, err)
	}
	return d
}

func TestOpenSequence(t *testing.T) {
	f := connect(t)
	s := NewIntSlider("n", 0, 10, 3)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	msgs := f.take()
	if len(msgs) != 3 {
		t.Fatalf("NewIntSlider sent %d messages, want 3 (layout, style, model): %v", len(msgs), msgs)
	}
	wantModels := []string{"LayoutModel", "SliderStyleModel", "IntSliderModel"}
	for i, m := range msgs {
		if m.Type != comm.TypeOpen || m.Target != Target {
			t.Errorf("message %d: type %q target %q, want open of %q", i, m.Type, m.Target, Target)
		}
		if v := m.Metadata["version"]; v != ProtocolVersion {
			t.Errorf("message %d: metadata version %v, want %s", i, v, ProtocolVersion)
		}
		if got := decode(t, m).State["_model_name"]; got != wantModels[i] {
			t.Errorf("message %d opens %v, want %s", i, got, wantModels[i])
		}
	}
	st := decode(t, msgs[2]).State
	if st["layout"] != "IPY_MODEL_"+msgs[0].ID || st["style"] != "IPY_MODEL_"+msgs[1].ID {
		t.Errorf("slider state names layout %v and style %v, want the models opened before it (%s, %s)", st["layout"], st["style"], msgs[0].ID, msgs[1].ID)
	}
	if st["value"] != 3.0 || st["min"] != 0.0 || st["max"] != 10.0 {
		t.Errorf("slider state value/min/max = %v/%v/%v, want 3/0/10", st["value"], st["min"], st["max"])
	}
	if s.ModelID() != msgs[2].ID {
		t.Errorf("ModelID() = %q, want the comm id %q", s.ModelID(), msgs[2].ID)
	}
	view, ok := s.Render().Data[ViewMIME].(map[string]any)
	if !ok || view["model_id"] != msgs[2].ID {
		t.Errorf("Render()[%s] = %v, want a view of model %s", ViewMIME, s.Render().Data[ViewMIME], msgs[2].ID)
	}
	if got, want := s.Render().Text(), "IntSlider(value=3, min=0, max=10, description='n')"; got != want {
		t.Errorf("text/plain = %q, want %q", got, want)
	}
}

func TestFrontendUpdate(t *testing.T) {
	f := connect(t)
	s := NewIntSlider("n", 0, 10, 3)
	var seen []int
	s.OnChange(func(v int) { seen = append(seen, v) })
	f.take()

	// A value outside the range is clamped; the echo comes first and
	// answers the frontend's message.
	f.deliver(t, s.ModelID(), "upd-1", map[string]any{"method": "update", "state": map[string]any{"value": 42}, "buffer_paths": []any{}})
	msgs := f.take()
	if len(msgs) != 1 {
		t.Fatalf("update sent %d messages, want the echo alone: %v", len(msgs), msgs)
	}
	if d := decode(t, msgs[0]); d.Method != "echo_update" || d.State["value"] != 42.0 || msgs[0].MsgID != "upd-1" {
		t.Errorf("reply %s (parent %q), want echo_update of value 42 answering upd-1", msgs[0].Data, msgs[0].MsgID)
	}
	if s.Value() != 10 || !reflect.DeepEqual(seen, []int{10}) {
		t.Errorf("after update to 42: Value() = %d, OnChange saw %v; want 10 and [10]", s.Value(), seen)
	}

	// The same value again changes nothing and calls nobody.
	f.deliver(t, s.ModelID(), "upd-2", map[string]any{"method": "update", "state": map[string]any{"value": 10}})
	f.take()
	if len(seen) != 1 {
		t.Errorf("an update to the current value called OnChange: %v", seen)
	}

	// A key without a Go field is stored as sent.
	f.deliver(t, s.ModelID(), "upd-3", map[string]any{"method": "update", "state": map[string]any{"description": "m"}})
	f.take()
	if got := s.fullState()["description"]; got != "m" {
		t.Errorf("description after update = %v, want m", got)
	}

	// A value of the wrong type is reported, not applied.
	f.deliver(t, s.ModelID(), "upd-4", map[string]any{"method": "update", "state": map[string]any{"value": "x"}})
	f.take()
	if s.Value() != 10 {
		t.Errorf("an update with a string value changed the slider to %d", s.Value())
	}
}

func TestSetValueSends(t *testing.T) {
	f := connect(t)
	c := NewCheckbox("on", false)
	f.take()
	c.SetValue(true)
	msgs := f.take()
	if len(msgs) != 1 {
		t.Fatalf("SetValue(true) sent %d messages, want 1", len(msgs))
	}
	if d := decode(t, msgs[0]); d.Method != "update" || !reflect.DeepEqual(d.State, map[string]any{"value": true}) || msgs[0].ID != c.ModelID() {
		t.Errorf("SetValue sent %s to %s, want update {value: true} to %s", msgs[0].Data, msgs[0].ID, c.ModelID())
	}
	c.SetValue(true)
	if msgs := f.take(); len(msgs) != 0 {
		t.Errorf("SetValue of the current value sent %v", msgs)
	}
}

func TestRequestState(t *testing.T) {
	f := connect(t)
	txt := NewText("name", "gcn")
	f.take()
	txt.SetValue("gat")
	f.take()
	f.deliver(t, txt.ModelID(), "req-1", map[string]any{"method": "request_state"})
	msgs := f.take()
	if len(msgs) != 1 {
		t.Fatalf("request_state got %d replies, want 1", len(msgs))
	}
	d := decode(t, msgs[0])
	if d.Method != "update" || d.State["value"] != "gat" || d.State["_model_name"] != "TextModel" || msgs[0].MsgID != "req-1" {
		t.Errorf("request_state reply %s (parent %q), want the full state with value gat answering req-1", msgs[0].Data, msgs[0].MsgID)
	}
}

func TestDropdown(t *testing.T) {
	f := connect(t)
	d := NewDropdown("model", []string{"gcn", "gat", "sage"}, "gat")
	var seen []string
	d.OnChange(func(v string) { seen = append(seen, v) })
	f.take()
	f.deliver(t, d.ModelID(), "m1", map[string]any{"method": "update", "state": map[string]any{"index": 2}})
	for _, bad := range []any{7, -1, nil} {
		f.deliver(t, d.ModelID(), "m2", map[string]any{"method": "update", "state": map[string]any{"index": bad}})
	}
	f.take()
	if d.Value() != "sage" || !reflect.DeepEqual(seen, []string{"sage"}) {
		t.Errorf("Value() = %q, OnChange saw %v; want sage and [sage] (bad indices ignored)", d.Value(), seen)
	}
	if err := d.SetValue("mlp"); err == nil || !strings.Contains(err.Error(), `"mlp"`) {
		t.Errorf("SetValue(mlp) = %v, want an error naming it", err)
	}
	if err := d.SetValue("gcn"); err != nil {
		t.Fatal(err)
	}
	msgs := f.take()
	if len(msgs) != 1 || decode(t, msgs[0]).State["index"] != 0.0 {
		t.Errorf("SetValue(gcn) sent %v, want an update of index 0", msgs)
	}
}

func TestButtonClick(t *testing.T) {
	f := connect(t)
	b := NewButton("go")
	clicks := 0
	b.OnClick(func() { clicks++ })
	f.take()
	f.deliver(t, b.ModelID(), "c1", map[string]any{"method": "custom", "content": map[string]any{"event": "click"}})
	f.deliver(t, b.ModelID(), "c2", map[string]any{"method": "custom", "content": map[string]any{"event": "hover"}})
	if clicks != 1 {
		t.Errorf("one click event and one other custom message made %d clicks, want 1", clicks)
	}
	b.Click()
	if clicks != 2 {
		t.Errorf("Click() made the count %d, want 2", clicks)
	}
	if msgs := f.take(); len(msgs) != 0 {
		t.Errorf("clicks sent %v, want nothing", msgs)
	}
}

func TestCallbackPanicIsContained(t *testing.T) {
	f := connect(t)
	s := NewFloatSlider("lr", 0, 1, 0.1, 0.5)
	after := false
	s.OnChange(func(float64) { panic("boom") })
	s.OnChange(func(float64) { after = true })
	f.take()
	f.deliver(t, s.ModelID(), "u", map[string]any{"method": "update", "state": map[string]any{"value": 0.7}})
	if s.Value() != 0.7 || !after {
		t.Errorf("after a panicking callback: Value() = %v, later callback ran %v; want 0.7 and true", s.Value(), after)
	}
}

func TestControlComm(t *testing.T) {
	f := connect(t)
	a := NewIntSlider("a", 0, 5, 1)
	b := NewCheckbox("b", true)
	f.take()
	if err := comm.Deliver(comm.Msg{Type: comm.TypeOpen, ID: "ctl", Target: ControlTarget, Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	f.deliver(t, "ctl", "rs-1", map[string]any{"method": "request_states"})
	msgs := f.take()
	if len(msgs) != 1 || msgs[0].MsgID != "rs-1" {
		t.Fatalf("request_states got %v, want one reply answering rs-1", msgs)
	}
	states := decode(t, msgs[0]).States
	for _, w := range []Widget{a, b} {
		st, ok := states[w.ModelID()].(map[string]any)
		if !ok {
			t.Fatalf("update_states lacks %s", w.ModelID())
		}
		if st["description"] == nil {
			t.Errorf("state of %s lacks its description: %v", w.ModelID(), st)
		}
	}
	// Layouts and styles are models too: two widgets with a style each.
	if len(states) != 6 {
		t.Errorf("update_states has %d models, want 6 (two widgets, their layouts and styles)", len(states))
	}
	// A widget whose comm the frontend closed is gone from the list.
	if err := comm.Deliver(comm.Msg{Type: comm.TypeClose, ID: a.ModelID()}); err != nil {
		t.Fatal(err)
	}
	f.deliver(t, "ctl", "rs-2", map[string]any{"method": "request_states"})
	if states := decode(t, f.take()[0]).States; states[a.ModelID()] != nil || states[b.ModelID()] == nil {
		t.Errorf("after closing %s, update_states lists %v", a.ModelID(), states)
	}
}

func TestOutputCaptureAndInteract(t *testing.T) {
	f := connect(t)
	s := NewIntSlider("k", 1, 9, 2)
	var runs []int
	box := Interact(func() { runs = append(runs, s.Value()) }, s)
	if err := box.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(runs, []int{2}) {
		t.Fatalf("Interact ran fn with %v, want [2] at once", runs)
	}
	// The output area is the box's second child; while fn runs it shows
	// the output of the parent message, then stops.
	out := box.Children()[1].(*Output)
	var msgIDs []any
	for _, m := range f.take() {
		if m.Type == comm.TypeMsg && m.ID == out.ModelID() {
			if v, ok := decode(t, m).State["msg_id"]; ok {
				msgIDs = append(msgIDs, v)
			}
		}
	}
	if !reflect.DeepEqual(msgIDs, []any{"cell-1", ""}) {
		t.Errorf("the Output's msg_id went through %v, want [cell-1 \"\"]", msgIDs)
	}
	children, _ := box.fullState()["children"].([]string)
	if !reflect.DeepEqual(children, []string{"IPY_MODEL_" + s.ModelID(), "IPY_MODEL_" + out.ModelID()}) {
		t.Errorf("box children = %v, want the slider and the output", children)
	}
	f.deliver(t, s.ModelID(), "u", map[string]any{"method": "update", "state": map[string]any{"value": 7}})
	if !reflect.DeepEqual(runs, []int{2, 7}) {
		t.Errorf("after the slider moved to 7, fn ran with %v, want [2 7]", runs)
	}
}

func TestBadArguments(t *testing.T) {
	f := connect(t)
	cases := []struct {
		name string
		w    interface {
			Widget
			Err() error
		}
		want string
	}{
		{"IntSlider min>max", NewIntSlider("x", 5, 1, 3), "min 5 is greater than max 1"},
		{"FloatSlider NaN", NewFloatSlider("x", 0, 1, 0.1, nanValue()), "NaN argument"},
		{"FloatSlider step", NewFloatSlider("x", 0, 1, 0, 0.5), "step 0 is not positive"},
		{"Dropdown empty", NewDropdown("x", nil, ""), "no options"},
		{"Box nil child", HBox(nil), "child 0 is nil"},
	}
	for _, c := range cases {
		if err := c.w.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Err() = %v, want one saying %q", c.name, err, c.want)
		}
		if c.w.ModelID() != "" {
			t.Errorf("%s: a widget with bad arguments opened comm %s", c.name, c.w.ModelID())
		}
		if got := c.w.Render().Text(); !strings.Contains(got, c.want) {
			t.Errorf("%s: Render shows %q, want the error", c.name, got)
		}
	}
	if msgs := f.take(); len(msgs) != 0 {
		t.Errorf("bad constructors sent %d messages, want none", len(msgs))
	}
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

func TestTransportFailure(t *testing.T) {
	f := connect(t)
	f.fail = errors.New("socket closed")
	s := NewIntSlider("n", 0, 1, 0)
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "socket closed") {
		t.Errorf("Err() with a failing transport = %v, want its error", err)
	}
	if _, ok := s.Render().Data[ViewMIME]; ok {
		t.Error("a widget whose comm failed to open renders a view")
	}
	// It still holds a value and calls back, as without a frontend.
	got := -1
	s.OnChange(func(v int) { got = v })
	s.SetValue(1)
	if got != 1 {
		t.Errorf("OnChange saw %d after SetValue(1), want 1", got)
	}
}

func TestWithoutFrontend(t *testing.T) {
	comm.SetTransport(nil)
	s := NewText("t", "a")
	if s.ModelID() != "" || s.Err() != nil {
		t.Errorf("without a frontend: ModelID %q, Err %v; want \"\" and nil", s.ModelID(), s.Err())
	}
	if b := s.Render(); len(b.Data) != 1 || b.Text() != "Text(value='a', description='t')" {
		t.Errorf("Render() = %v, want text/plain alone", b.Data)
	}
	out := NewOutput()
	ran := false
	out.Capture(func() { ran = true })
	if !ran {
		t.Error("Capture without a frontend did not run fn")
	}
}

func TestReadoutFormat(t *testing.T) {
	for _, c := range []struct {
		step float64
		want string
	}{{1, ".1f"}, {0.1, ".1f"}, {0.25, ".2f"}, {0.001, ".3f"}, {2.5, ".1f"}} {
		if got := readoutFormat(c.step); got != c.want {
			t.Errorf("readoutFormat(%v) = %q, want %q", c.step, got, c.want)
		}
	}
	if got, want := quote("it's"), `'it\'s'`; got != want {
		t.Errorf("quote(it's) = %s, want %s", got, want)
	}
}

// clearCounter is a display publisher that counts clear_output calls.
type clearCounter struct{ clears int }

func (c *clearCounter) Display(display.Bundle, bool) {}
func (c *clearCounter) ClearOutput(bool)             { c.clears++ }

// Interact clears its output area before each run when a frontend
// captures it, and clears nothing without one: then fn prints into the
// running cell, whose earlier output must stay.
func TestInteractClearsOnlyItsArea(t *testing.T) {
	for _, frontend := range []bool{true, false} {
		pub := &clearCounter{}
		display.SetPublisher(pub)
		if frontend {
			connect(t)
		}
		s := NewIntSlider("k", 1, 9, 2)
		Interact(func() {}, s)
		s.SetValue(3)
		want := 0
		if frontend {
			want = 2
		}
		if pub.clears != want {
			t.Errorf("frontend %v: Interact and one change cleared %d times, want %d", frontend, pub.clears, want)
		}
		display.SetPublisher(nil)
		comm.SetTransport(nil)
	}
}
