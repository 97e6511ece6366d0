package widgets

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/viz/comm"
	"github.com/gnnlab/gnnlab/viz/display"
)

// The protocol and the JavaScript modules of ipywidgets 8.
const (
	// ProtocolVersion is the Jupyter widget protocol spoken, sent as
	// the version of every comm_open.
	ProtocolVersion = "2.1.0"

	// Target is the comm target of widget models.
	Target = "jupyter.widget"
	// ControlTarget is the comm target on which the frontend asks for
	// the state of every widget at once (after a page reload).
	ControlTarget = "jupyter.widget.control"

	// ViewMIME is the MIME type of a widget's view in a display bundle.
	ViewMIME = "application/vnd.jupyter.widget-view+json"

	controlsModule = "@jupyter-widgets/controls"
	baseModule     = "@jupyter-widgets/base"
	outputModule   = "@jupyter-widgets/output"
	moduleVersion  = "2.0.0" // of the controls and base modules
	outputVersion  = "1.0.0"
)

// Widget is a widget that can be shown in a notebook and placed in a box.
// Every widget of this package is one.
type Widget interface {
	// ModelID returns the id of the widget's model (its comm's id), or
	// "" when no frontend is connected.
	ModelID() string
	// Render returns the display bundle of a view of the widget.
	Render() display.Bundle
}

// observer is a widget whose value can change; Interact watches them.
type observer interface {
	observe(func())
}

// model is the kernel side of one widget model: its synced state and the
// comm that carries it.
type model struct {
	comm *comm.Comm // nil without a frontend
	name string     // the Go constructor, for text/plain and errors

	mu    sync.Mutex
	state map[string]any
	err   error // why the widget cannot be shown, set at construction

	// update applies a state change from the frontend to the widget's Go
	// fields; it returns the callbacks to run, outside the lock.
	update func(key string, raw json.RawMessage) ([]func(), error)
	// custom handles a custom message (a Button's click).
	custom func(content json.RawMessage) []func()
	// text renders text/plain, under mu.
	text func() string
}

// registry holds the models alive, for the control comm's request_states.
var registry = struct {
	sync.Mutex
	models map[string]*model
}{models: map[string]*model{}}

func init() {
	comm.RegisterTarget(ControlTarget, openControl)
}

func viewState(modelName, viewName, module, version string) map[string]any {
	return map[string]any{
		"_model_name": modelName, "_model_module": module, "_model_module_version": version,
		"_view_name": viewName, "_view_module": module, "_view_module_version": version,
	}
}

// newModel opens the comm of a model with state, preceded by its layout
// and, when styleName is not empty, its style model, as ipywidgets does.
// Without a frontend the model still works, unshown.
func newModel(name string, state map[string]any, styleName string) *model {
	m := &model{name: name, state: state}
	if !comm.Connected() {
		return m
	}
	layout, err := openPlain(viewState("LayoutModel", "LayoutView", baseModule, moduleVersion))
	if err != nil {
		m.err = err
		return m
	}
	state["layout"] = "IPY_MODEL_" + layout
	if styleName != "" {
		st := viewState(styleName, "StyleView", controlsModule, moduleVersion)
		st["_view_module"] = baseModule
		st["description_width"] = ""
		style, err := openPlain(st)
		if err != nil {
			m.err = err
			return m
		}
		state["style"] = "IPY_MODEL_" + style
	}
	c, err := comm.Open(Target, openData(state), map[string]any{"version": ProtocolVersion}, nil)
	if err != nil {
		m.err = err
		return m
	}
	m.comm = c
	c.OnMsg(m.handle)
	c.OnClose(func(comm.Msg) {
		registry.Lock()
		delete(registry.models, c.ID())
		registry.Unlock()
	})
	registry.Lock()
	registry.models[c.ID()] = m
	registry.Unlock()
	return m
}

// openPlain opens a model that has no Go side (a layout or a style) and
// returns its id.
func openPlain(state map[string]any) (string, error) {
	c, err := comm.Open(Target, openData(state), map[string]any{"version": ProtocolVersion}, nil)
	if err != nil {
		return "", err
	}
	pm := &model{name: "style", state: state, comm: c}
	c.OnMsg(pm.handle)
	registry.Lock()
	registry.models[c.ID()] = pm
	registry.Unlock()
	return c.ID(), nil
}

func openData(state map[string]any) map[string]any {
	return map[string]any{"state": state, "buffer_paths": []any{}}
}

// ModelID returns the model's comm id, or "" without a frontend.
func (m *model) ModelID() string {
	if m.comm == nil {
		return ""
	}
	return m.comm.ID()
}

// Err returns why the widget cannot be shown (an invalid argument of its
// constructor, or a failure to reach the frontend); nil when it can.
func (m *model) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Render returns the bundle of a view of the widget: the widget view
// MIME type for JupyterLab and text/plain for terminals. A widget whose
// constructor failed shows the error.
func (m *model) Render() display.Bundle {
	m.mu.Lock()
	text, err := m.name, m.err
	if m.text != nil {
		text = m.text()
	}
	m.mu.Unlock()
	if err != nil {
		return display.Bundle{Data: map[string]any{"text/plain": err.Error()}, Metadata: map[string]any{}}
	}
	data := map[string]any{"text/plain": text}
	if id := m.ModelID(); id != "" {
		data[ViewMIME] = map[string]any{"version_major": 2, "version_minor": 0, "model_id": id}
	}
	return display.Bundle{Data: data, Metadata: map[string]any{}}
}

// fail records a constructor's error, which Render shows; it also goes to
// standard error, so that a cell that does not show the widget sees it.
func (m *model) fail(format string, args ...any) {
	m.err = fmt.Errorf("widgets: "+m.name+": "+format, args...)
	fmt.Fprintln(os.Stderr, m.err)
}

// set changes state keys from the Go side and sends them to the frontend.
func (m *model) set(kv map[string]any) {
	m.mu.Lock()
	for k, v := range kv {
		m.state[k] = v
	}
	m.mu.Unlock()
	if m.comm != nil {
		if err := m.comm.Send(map[string]any{"method": "update", "state": kv, "buffer_paths": []any{}}, nil, ""); err != nil {
			fmt.Fprintln(os.Stderr, "widgets:", err)
		}
	}
}

// fullState returns a copy of the state.
func (m *model) fullState() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := make(map[string]any, len(m.state))
	for k, v := range m.state {
		s[k] = v
	}
	return s
}

type commData struct {
	Method  string                     `json:"method"`
	State   map[string]json.RawMessage `json:"state"`
	Content json.RawMessage            `json:"content"`
}

// handle answers a comm_msg of the frontend: update (then echo_update),
// request_state and custom.
func (m *model) handle(msg comm.Msg) {
	var d commData
	if err := json.Unmarshal(msg.Data, &d); err != nil {
		fmt.Fprintf(os.Stderr, "widgets: %s: bad comm message: %v\n", m.name, err)
		return
	}
	var calls []func()
	switch d.Method {
	case "update":
		// Echo first, as ipywidgets does: the frontend then knows that
		// the kernel took the value.
		echo := map[string]any{"method": "echo_update", "state": d.State, "buffer_paths": []any{}}
		if err := m.comm.Send(echo, nil, msg.MsgID); err != nil {
			fmt.Fprintln(os.Stderr, "widgets:", err)
		}
		keys := make([]string, 0, len(d.State))
		for k := range d.State {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			raw := d.State[k]
			var cs []func()
			var err error
			if m.update != nil {
				cs, err = m.update(k, raw)
			} else {
				err = m.store(k, raw)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "widgets: %s: update of %s: %v\n", m.name, k, err)
				continue
			}
			calls = append(calls, cs...)
		}
	case "request_state":
		st := map[string]any{"method": "update", "state": m.fullState(), "buffer_paths": []any{}}
		if err := m.comm.Send(st, nil, msg.MsgID); err != nil {
			fmt.Fprintln(os.Stderr, "widgets:", err)
		}
	case "custom":
		if m.custom != nil {
			calls = m.custom(d.Content)
		}
	default:
		fmt.Fprintf(os.Stderr, "widgets: %s: unknown method %q\n", m.name, d.Method)
	}
	for _, f := range calls {
		call(m.name, f)
	}
}

// store keeps a state key the Go side has no field for (an Output's
// outputs, a layout's width) as the frontend sent it.
func (m *model) store(key string, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	m.mu.Lock()
	m.state[key] = v
	m.mu.Unlock()
	return nil
}

// call runs a user's callback; a panic in it is reported, not fatal,
// since it runs outside any cell.
func call(name string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "widgets: %s: callback panicked: %v\n", name, r)
		}
	}()
	f()
}

// openControl answers the control comm: request_states gets the state of
// every widget alive, which the frontend needs after a page reload.
func openControl(c *comm.Comm, _ comm.Msg) error {
	c.OnMsg(func(msg comm.Msg) {
		var d commData
		if err := json.Unmarshal(msg.Data, &d); err != nil || d.Method != "request_states" {
			fmt.Fprintf(os.Stderr, "widgets: control comm: unexpected message %s\n", msg.Data)
			return
		}
		registry.Lock()
		ms := make(map[string]*model, len(registry.models))
		for id, m := range registry.models {
			ms[id] = m
		}
		registry.Unlock()
		states, paths := map[string]any{}, map[string]any{}
		for id, m := range ms {
			states[id] = m.fullState()
			paths[id] = []any{}
		}
		reply := map[string]any{"method": "update_states", "states": states, "buffer_paths": paths}
		if err := c.Send(reply, nil, msg.MsgID); err != nil {
			fmt.Fprintln(os.Stderr, "widgets:", err)
		}
	})
	return nil
}

// quote formats s for text/plain the way Python's repr does, enough to
// read.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
