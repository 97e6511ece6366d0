// Package widgets puts interactive controls in a notebook: sliders, a
// dropdown, a checkbox, a button, a text field, an output area and boxes
// that lay them out, speaking the Jupyter widget protocol of ipywidgets 8
// (protocol 2.1.0), so JupyterLab with jupyterlab_widgets shows them as
// it shows Python's.
//
//	lr := widgets.NewIntSlider("lr ×1000", 1, 100, 10)
//	lr.OnChange(func(v int) { fmt.Println("lr is now", v) })
//	lr // the cell's last expression shows the slider
//
// # Values and callbacks
//
// Each control keeps its value in Go: Value reads it at any time, also
// from a cell that is running (a training loop reading a slider the user
// moves), and SetValue changes it in every view. OnChange (OnClick for a
// Button) adds a function called with the new value each time it
// changes, from the frontend or from SetValue. Callbacks run in the
// session, between cells or while one runs, one at a time in the order
// the frontend sent its events; a panic in one is reported on standard
// error and ends nothing else. A callback that never returns holds up the
// widget events after it, not the cells; %restart ends it.
//
// # Output and Interact
//
// A callback's prints do not belong to a cell, so JupyterLab shows them
// in its log console only. An Output shows them in the notebook:
// out.Capture(fn) runs fn with what it prints and displays captured in
// the output area. Interact combines the two: it shows controls above an
// Output and runs a function now and after every change, with the area
// cleared first, the way a teaching cell redraws a training curve for
// the learning rate chosen.
//
// # The protocol
//
// Every widget is a comm of target jupyter.widget, opened with its state
// (after its layout and style models, as ipywidgets does); a view is the
// display MIME type application/vnd.jupyter.widget-view+json naming the
// model. The frontend's update messages are answered with echo_update,
// request_state with the full state, and Button clicks arrive as custom
// messages. The control comm (jupyter.widget.control) answers
// request_states with the state of every widget alive, which a reloaded
// page uses to redraw them; comm_info_request lists the open widget
// comms. Package comm carries the messages; the kernel relays them to the
// session and never runs widget code itself.
//
// Widgets live in the session: when its worker is replaced (a crash,
// %restart) the kernel closes their comms, the frontend removes their
// views, and running the cells again makes new ones.
//
// # Without a notebook
//
// Outside a Jupyter frontend (gnnlab repl, gnnlab run, a Go program) the
// widgets still hold values and run callbacks on SetValue; they show as
// their text/plain form. Interact then prints into the running cell and
// clears nothing, so the cell keeps what it printed before.
//
// # Errors
//
// A constructor given bad arguments (a slider whose min is above its max,
// a dropdown value that is not an option) returns a widget that shows the
// error instead of a control; Err returns it, and it is also written to
// standard error when the widget is made.
//
// BUG(gnnlab): what a goroutine started by a callback prints, or compiled
// code that the callback calls, goes to the running cell's output, not
// to the callback's: the worker knows a callback's output by the
// goroutine that runs it.
//
// BUG(gnnlab): the controls are the common ones listed here; there is no
// binary buffer support in the controls (Image, Audio) and no layout or
// style API beyond ipywidgets' defaults.
package widgets
