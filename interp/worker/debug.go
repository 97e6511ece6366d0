package worker

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// The Jupyter debug protocol: DAP requests that JupyterLab sends in
// debug_request messages, answered here on a goroutine of their own so
// that a cell stopped at a breakpoint can be asked for its frames and
// variables. Cells are known by files that dumpCell writes, named by the
// murmur2 hash of their code with the seed that debugInfo reports, as
// JupyterLab computes them (tmpFilePrefix + hash + ".go").

// hashSeed is the seed of the cells' file names (debugInfo's hashSeed).
const hashSeed = 3339675911

// debugger is the worker's side of the debug protocol.
type debugger struct {
	s      *server
	reqs   chan workerproto.Request
	prefix string // tmpFilePrefix: a folder of this worker, with a slash

	mu       sync.Mutex
	seq      int
	started  bool             // attached
	bps      map[string][]int // breakpoint lines by cell file
	cells    map[int]string   // cell number → its file
	stop     *interp.Stop     // the cell stopped now, nil when none
	refs     []func() []variable
	closedCh chan struct{}
}

// variable is one entry of a variables response, with how to expand it.
type variable struct {
	name string
	v    reflect.Value
}

func newDebugger(s *server) *debugger {
	dir := filepath.Join(os.TempDir(), "gnnlab-debug-"+strconv.Itoa(os.Getpid()))
	return &debugger{
		s: s, reqs: make(chan workerproto.Request, 64), prefix: dir + string(filepath.Separator),
		bps: map[string][]int{}, cells: map[int]string{}, closedCh: make(chan struct{}),
	}
}

func (d *debugger) push(req workerproto.Request) {
	select {
	case d.reqs <- req:
	case <-d.closedCh:
	}
}

func (d *debugger) close() {
	close(d.closedCh)
	_ = os.RemoveAll(d.prefix)
}

func (d *debugger) serve() {
	for {
		select {
		case req := <-d.reqs:
			resp, command := d.handle(req.Debug)
			if err := d.s.send(workerproto.Event{ID: req.ID, Kind: workerproto.EvDone, Debug: resp}); err != nil {
				return
			}
			if command == "attach" {
				// The debugger is ready for breakpoints (DAP's initialized
				// event, which opens JupyterLab's debugger sidebar).
				d.event("initialized", map[string]any{})
			}
		case <-d.closedCh:
			return
		}
	}
}

// cellFile returns the file that JupyterLab names a cell of this code by.
func (d *debugger) cellFile(code string) string {
	return d.prefix + strconv.FormatUint(uint64(murmur2([]byte(code), hashSeed)), 10) + ".go"
}

type dapRequest struct {
	Seq       int             `json:"seq"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// handle answers one DAP request with its response; it returns the
// request's command too.
func (d *debugger) handle(raw json.RawMessage) (json.RawMessage, string) {
	var req dapRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return d.response(req, nil, fmt.Errorf("debug request: %w", err)), ""
	}
	body, err := d.run(req)
	return d.response(req, body, err), req.Command
}

func (d *debugger) response(req dapRequest, body any, err error) json.RawMessage {
	d.mu.Lock()
	d.seq++
	seq := d.seq
	d.mu.Unlock()
	m := map[string]any{"seq": seq, "type": "response", "request_seq": req.Seq, "command": req.Command, "success": err == nil}
	if err != nil {
		m["message"] = err.Error()
	}
	if body == nil {
		body = map[string]any{}
	}
	m["body"] = body
	b, _ := json.Marshal(m)
	return b
}

// event sends a DAP event to the kernel, which publishes it.
func (d *debugger) event(name string, body any) {
	d.mu.Lock()
	d.seq++
	seq := d.seq
	d.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"seq": seq, "type": "event", "event": name, "body": body})
	_ = d.s.send(workerproto.Event{Kind: workerproto.EvDebug, Debug: b})
}

func (d *debugger) run(req dapRequest) (any, error) {
	args := req.Arguments
	switch req.Command {
	case "initialize":
		return map[string]any{
			"supportsConfigurationDoneRequest": true,
			"supportsSetVariable":              false,
			"supportsStepBack":                 false,
		}, nil
	case "attach":
		d.mu.Lock()
		d.started = true
		d.mu.Unlock()
		d.s.sess.SetDebug(&interp.DebugOptions{Breakpoints: d.breakpoints, Stopped: d.stopped})
		return nil, nil
	case "configurationDone":
		return nil, nil
	case "disconnect":
		d.s.sess.SetDebug(nil)
		d.mu.Lock()
		d.started = false
		d.bps = map[string][]int{}
		st := d.stop
		d.stop, d.refs = nil, nil
		d.mu.Unlock()
		if st != nil {
			_ = st.Resume(interp.Continue)
		}
		return nil, nil
	case "debugInfo":
		return d.info(), nil
	case "dumpCell":
		var a struct {
			Code string `json:"code"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		path := d.cellFile(a.Code)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(a.Code), 0o600); err != nil {
			return nil, err
		}
		return map[string]any{"sourcePath": path}, nil
	case "setBreakpoints":
		return d.setBreakpoints(args)
	case "threads":
		return map[string]any{"threads": []map[string]any{{"id": 1, "name": "cell"}}}, nil
	case "stackTrace":
		return d.stackTrace()
	case "scopes":
		return d.scopes(args)
	case "variables":
		return d.variables(args)
	case "source":
		var a struct {
			Source struct {
				Path string `json:"path"`
			} `json:"source"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(a.Source.Path, d.prefix) {
			return nil, fmt.Errorf("source %q is not a cell of this kernel", a.Source.Path)
		}
		b, err := os.ReadFile(a.Source.Path)
		if err != nil {
			return nil, err
		}
		return map[string]any{"content": string(b)}, nil
	case "modules":
		return map[string]any{"modules": []any{}, "totalModules": 0}, nil
	case "inspectVariables":
		// Between cells or at a stop: a running cell changes them.
		d.mu.Lock()
		stopped := d.stop != nil
		d.mu.Unlock()
		if !stopped && d.s.currentID() != 0 {
			return map[string]any{"variables": []any{}}, nil
		}
		return map[string]any{"variables": d.list(d.s.sess.Variables)}, nil
	case "continue", "next", "stepIn", "stepOut":
		return d.resume(req.Command)
	}
	return nil, fmt.Errorf("the gnnlab kernel does not support the debug request %q", req.Command)
}

func (d *debugger) info() map[string]any {
	d.mu.Lock()
	defer d.mu.Unlock()
	bps := []map[string]any{}
	paths := make([]string, 0, len(d.bps))
	for p := range d.bps {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		lines := []map[string]any{}
		for _, l := range d.bps[p] {
			lines = append(lines, map[string]any{"line": l})
		}
		bps = append(bps, map[string]any{"source": p, "breakpoints": lines})
	}
	stopped := []int{}
	if d.stop != nil {
		stopped = append(stopped, d.stop.Thread)
	}
	return map[string]any{
		"isStarted":      d.started,
		"hashMethod":     "Murmur2",
		"hashSeed":       hashSeed,
		"tmpFilePrefix":  d.prefix,
		"tmpFileSuffix":  ".go",
		"breakpoints":    bps,
		"stoppedThreads": stopped,
		"richRendering":  false,
		"exceptionPaths": []string{},
	}
}

func (d *debugger) setBreakpoints(args json.RawMessage) (any, error) {
	var a struct {
		Source struct {
			Path string `json:"path"`
		} `json:"source"`
		Breakpoints []struct {
			Line int `json:"line"`
		} `json:"breakpoints"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	var lines []int
	out := []map[string]any{}
	for _, b := range a.Breakpoints {
		lines = append(lines, b.Line)
		out = append(out, map[string]any{"verified": true, "line": b.Line, "source": map[string]any{"path": a.Source.Path}})
	}
	d.mu.Lock()
	if len(lines) == 0 {
		delete(d.bps, a.Source.Path)
	} else {
		d.bps[a.Source.Path] = lines
	}
	d.mu.Unlock()
	return map[string]any{"breakpoints": out}, nil
}

// breakpoints is the session's DebugOptions.Breakpoints: the lines set
// on the file of this cell's code. It also remembers which file cell n
// is, for the frames of later stops.
func (d *debugger) breakpoints(n int, code string) []int {
	path := d.cellFile(code)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cells[n] = path
	return append([]int(nil), d.bps[path]...)
}

// stopped is the session's DebugOptions.Stopped.
func (d *debugger) stopped(st *interp.Stop) {
	d.mu.Lock()
	d.stop, d.refs = st, nil
	d.mu.Unlock()
	d.event("stopped", map[string]any{"reason": st.Reason, "threadId": st.Thread, "allThreadsStopped": true})
}

// cellEnded forgets a stop that the cell's end (an interrupt) left
// behind, telling the frontend that the thread goes on no more.
func (d *debugger) cellEnded() {
	d.mu.Lock()
	st := d.stop
	d.stop, d.refs = nil, nil
	d.mu.Unlock()
	if st != nil {
		d.event("continued", map[string]any{"threadId": st.Thread, "allThreadsContinued": true})
	}
}

func (d *debugger) current() (*interp.Stop, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop == nil {
		return nil, fmt.Errorf("no cell is stopped")
	}
	return d.stop, nil
}

func (d *debugger) stackTrace() (any, error) {
	st, err := d.current()
	if err != nil {
		return nil, err
	}
	frames := []map[string]any{}
	d.mu.Lock()
	for i, f := range st.Frames {
		fr := map[string]any{"id": i + 1, "name": f.Name, "line": f.Line, "column": f.Column}
		if p, ok := d.cells[f.Cell]; ok {
			fr["source"] = map[string]any{"path": p}
		}
		frames = append(frames, fr)
	}
	d.mu.Unlock()
	return map[string]any{"stackFrames": frames, "totalFrames": len(frames)}, nil
}

// ref registers a list of variables to expand and returns its
// variablesReference (1, 2, ...; 0 is "nothing to expand").
func (d *debugger) ref(list func() []variable) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refs = append(d.refs, list)
	return len(d.refs)
}

func (d *debugger) scopes(args json.RawMessage) (any, error) {
	var a struct {
		FrameID int `json:"frameId"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	st, err := d.current()
	if err != nil {
		return nil, err
	}
	locals := d.ref(func() []variable { return toVariables(st.Locals(a.FrameID - 1)) })
	globals := d.ref(func() []variable { return toVariables(st.Globals()) })
	scopes := []map[string]any{
		{"name": "Locals", "variablesReference": locals, "expensive": false},
		{"name": "Globals", "variablesReference": globals, "expensive": false},
	}
	if len(st.Locals(a.FrameID-1)) == 0 {
		// A cell's own variables are the session's: JupyterLab shows the
		// first scope, so Globals goes first when the frame has no locals.
		scopes[0], scopes[1] = scopes[1], scopes[0]
	}
	return map[string]any{"scopes": scopes}, nil
}

func toVariables(vs []interp.Variable) []variable {
	out := make([]variable, len(vs))
	for i, v := range vs {
		out[i] = variable{name: v.Name, v: v.Value}
	}
	return out
}

func (d *debugger) variables(args json.RawMessage) (any, error) {
	var a struct {
		Ref int `json:"variablesReference"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	d.mu.Lock()
	var list func() []variable
	if a.Ref >= 1 && a.Ref <= len(d.refs) {
		list = d.refs[a.Ref-1]
	}
	d.mu.Unlock()
	if list == nil {
		return nil, fmt.Errorf("unknown variablesReference %d", a.Ref)
	}
	out := []map[string]any{}
	for _, v := range list() {
		out = append(out, d.entry(v))
	}
	return map[string]any{"variables": out}, nil
}

// list gives the entries of session variables (inspectVariables).
func (d *debugger) list(vars func() []interp.Variable) []map[string]any {
	out := []map[string]any{}
	for _, v := range toVariables(vars()) {
		out = append(out, d.entry(v))
	}
	return out
}

// entry is a DAP variable: its value as fmt prints it (shortened), its
// type, and a reference to expand it when it has parts.
func (d *debugger) entry(v variable) map[string]any {
	val := v.v
	for val.IsValid() && val.Kind() == reflect.Interface && !val.IsNil() {
		val = val.Elem()
	}
	m := map[string]any{"name": v.name, "value": short(val), "type": typeOf(val), "variablesReference": 0}
	if kids := children(val); kids != nil {
		m["variablesReference"] = d.ref(kids)
	}
	return m
}

func typeOf(v reflect.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	return v.Type().String()
}

func short(v reflect.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	s := fmt.Sprint(v)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// maxChildren bounds the elements shown of a slice, array or map.
const maxChildren = 100

// children returns the parts of v to expand, or nil when it has none.
func children(v reflect.Value) func() []variable {
	switch v.Kind() {
	case reflect.Struct:
		if v.NumField() == 0 {
			return nil
		}
		return func() []variable {
			var out []variable
			for i := 0; i < v.NumField(); i++ {
				out = append(out, variable{name: v.Type().Field(i).Name, v: v.Field(i)})
			}
			return out
		}
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			return nil
		}
		return func() []variable {
			var out []variable
			for i := 0; i < v.Len() && i < maxChildren; i++ {
				out = append(out, variable{name: strconv.Itoa(i), v: v.Index(i)})
			}
			return out
		}
	case reflect.Map:
		if v.Len() == 0 {
			return nil
		}
		return func() []variable {
			var out []variable
			it := v.MapRange()
			for it.Next() && len(out) < maxChildren {
				out = append(out, variable{name: short(it.Key()), v: it.Value()})
			}
			sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
			return out
		}
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return func() []variable { return []variable{{name: "*", v: v.Elem()}} }
	}
	return nil
}

func (d *debugger) resume(cmd string) (any, error) {
	d.mu.Lock()
	st := d.stop
	d.stop, d.refs = nil, nil
	d.mu.Unlock()
	if st == nil {
		return nil, fmt.Errorf("no cell is stopped")
	}
	how := map[string]interp.Resume{"continue": interp.Continue, "next": interp.StepOver, "stepIn": interp.StepIn, "stepOut": interp.StepOut}[cmd]
	// continued goes out before the cell runs on: a step's next stop
	// would otherwise race it, and a frontend that hears stopped, then
	// continued, takes the stopped thread for running.
	d.event("continued", map[string]any{"threadId": st.Thread, "allThreadsContinued": true})
	if err := st.Resume(how); err != nil {
		return nil, err
	}
	return map[string]any{"allThreadsContinued": true}, nil
}

// murmur2 is MurmurHash2 (32 bits) of b with seed, the hash that
// JupyterLab's debugger names cells by (it hashes the UTF-8 bytes of the
// cell's code).
func murmur2(b []byte, seed uint32) uint32 {
	const m = 0x5bd1e995
	h := seed ^ uint32(len(b))
	for len(b) >= 4 {
		k := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		k *= m
		k ^= k >> 24
		k *= m
		h = h*m ^ k
		b = b[4:]
	}
	switch len(b) {
	case 3:
		h ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(b[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
