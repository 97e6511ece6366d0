package widgets

import (
	"fmt"
	"strings"

	"github.com/gnnlab/gnnlab/viz/comm"
	"github.com/gnnlab/gnnlab/viz/display"
)

// Output is an area that shows what functions print and display
// (ipywidgets' Output), typically what a callback draws.
type Output struct {
	*model
}

// NewOutput returns an empty output area.
func NewOutput() *Output {
	o := &Output{}
	st := viewState("OutputModel", "OutputView", outputModule, outputVersion)
	st["msg_id"] = ""
	st["outputs"] = []any{}
	o.model = newModel("Output", st, "")
	o.text = func() string { return "Output()" }
	return o
}

// Capture runs fn and shows in the output area what it prints and
// displays, as `with out:` does in Python. It captures what is shown
// under the current parent message: that of the frontend event whose
// callback calls Capture, else the running cell's; so a callback that
// runs while a cell runs captures its own output and not the cell's.
// Without a frontend fn just runs.
func (o *Output) Capture(fn func()) { o.capture(fn, false) }

// capture is Capture, with the area cleared first when clear is set.
// Only a captured area is cleared: without a frontend what fn prints
// goes to the running cell, and a clear there would take away what the
// cell printed before (gnnlab run saved Interact's cells without it).
func (o *Output) capture(fn func(), clear bool) {
	parent := comm.Parent()
	if o.comm == nil || parent == "" {
		fn()
		return
	}
	o.set(map[string]any{"msg_id": parent})
	defer o.set(map[string]any{"msg_id": ""})
	call(o.name, func() {
		if clear {
			display.Clear(true)
		}
		fn()
	})
}

// Clear empties the output area.
func (o *Output) Clear() {
	o.set(map[string]any{"outputs": []any{}})
}

// Box lays widgets out in a row (HBox) or a column (VBox).
type Box struct {
	*model
	children []Widget
}

// HBox returns a box showing children side by side.
func HBox(children ...Widget) *Box { return newBox("HBox", children) }

// VBox returns a box showing children one above the other.
func VBox(children ...Widget) *Box { return newBox("VBox", children) }

func newBox(kind string, children []Widget) *Box {
	b := &Box{children: append([]Widget(nil), children...)}
	st := viewState(kind+"Model", kind+"View", controlsModule, moduleVersion)
	refs := make([]string, 0, len(children))
	names := make([]string, 0, len(children))
	var missing []string
	for i, c := range children {
		if c == nil {
			missing = append(missing, fmt.Sprintf("child %d is nil", i))
			continue
		}
		names = append(names, c.Render().Text())
		if id := c.ModelID(); id != "" {
			refs = append(refs, "IPY_MODEL_"+id)
		}
	}
	st["children"] = refs
	st["box_style"] = ""
	if len(missing) > 0 {
		b.model = &model{name: kind, state: st}
		b.fail("%s", strings.Join(missing, ", "))
		return b
	}
	b.model = newModel(kind, st, "")
	b.text = func() string { return kind + "(" + strings.Join(names, ", ") + ")" }
	return b
}

// Children returns the widgets in the box.
func (b *Box) Children() []Widget { return append([]Widget(nil), b.children...) }

// Interact shows controls above an Output and calls fn now and again each
// time one of the controls changes (a slider moved, a button clicked),
// with the output area cleared and what fn prints and displays shown in
// it. fn reads the controls' values itself:
//
//	lr := widgets.NewFloatSlider("lr", 0.001, 0.1, 0.001, 0.01)
//	widgets.Interact(func() { fmt.Println("training with", lr.Value()) }, lr)
//
// It returns the box, which a cell shows as its last expression.
// Without a frontend (gnnlab run, gnnlab repl) there is no output area:
// what fn prints goes to the running cell and nothing is cleared.
func Interact(fn func(), controls ...Widget) *Box {
	out := NewOutput()
	run := func() {
		out.capture(fn, true)
	}
	for _, c := range controls {
		if o, ok := c.(observer); ok {
			o.observe(run)
		}
	}
	children := append(append([]Widget(nil), controls...), out)
	box := VBox(children...)
	if box.Err() == nil {
		run()
	}
	return box
}
