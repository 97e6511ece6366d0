package debug

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
	yaegi "github.com/traefik/yaegi/interp"
)

// Options turn debugging on (interp's Session.SetDebug).
type Options struct {
	// Breakpoints returns the lines (1 is the cell's first) where the
	// code of cell number n stops. Before each cell runs it is called for
	// that cell and for every earlier one.
	Breakpoints func(n int, code string) []int
	// Stopped is called, on a goroutine of the session, each time a cell
	// run under the debugger stops. The cell waits until st.Resume is
	// called or the cell is interrupted. Stopped must not block.
	Stopped func(st *Stop)
}

// Resume says how a stopped cell goes on.
type Resume int

const (
	Continue Resume = iota // run to the next breakpoint
	StepOver               // stop on the next line of this frame or a caller
	StepIn                 // stop on the next line, entering calls
	StepOut                // stop once this frame has returned
)

// A Stop is a cell stopped by the debugger.
type Stop struct {
	// Reason is "breakpoint", "step", "pause" or "entry".
	Reason string
	// Thread is the goroutine that stopped, 1 for the cell's own.
	Thread int
	// Frames are the frame that stopped and those it is nested in,
	// innermost first: yaegi's debugger follows where a function was
	// declared (a cell's function: that frame alone), not its callers.
	Frames []StackFrame

	run    *Run
	ev     *yaegi.DebugEvent
	frames []*yaegi.DebugFrame
	once   sync.Once
}

// StackFrame is one call of a stopped cell.
type StackFrame struct {
	Name string
	// Cell is the number of the cell whose code the frame runs (the n of
	// Options.Breakpoints), Line and Column its position in that cell;
	// Cell is 0 for code outside cells (the session's helpers).
	Cell, Line, Column int
}

// Variable is a named value of a stopped cell.
type Variable struct {
	Name  string
	Value reflect.Value
}

// ErrResumed is returned by a second Resume of one Stop.
var ErrResumed = errors.New("interp: the stop was resumed already")

// Locals returns the variables of frame i (an index into Frames),
// sorted by name.
func (st *Stop) Locals(i int) []Variable {
	if i < 0 || i >= len(st.frames) {
		return nil
	}
	var vs []Variable
	seen := map[string]bool{}
	for _, sc := range st.frames[i].Scopes() {
		for _, v := range safeVariables(sc) {
			if seen[v.Name] || !shown(v.Name, v.Value) {
				continue
			}
			seen[v.Name] = true
			vs = append(vs, Variable{Name: v.Name, Value: v.Value})
		}
	}
	sortVars(vs)
	return vs
}

// safeVariables returns the variables of sc; yaegi's frame may hold
// fewer slots than its scope names while a cell is being compiled.
func safeVariables(sc *yaegi.DebugFrameScope) (vs []*yaegi.DebugVariable) {
	defer func() {
		if recover() != nil {
			vs = nil
		}
	}()
	return sc.Variables()
}

// Globals returns the session's variables (not its functions), sorted by
// name (Host.Variables).
func (st *Stop) Globals() []Variable {
	return st.run.d.host.Variables()
}

// Resume lets the stopped cell go on as r says. Only the first call of a
// Stop counts; later ones return ErrResumed.
func (st *Stop) Resume(r Resume) error {
	err := ErrResumed
	st.once.Do(func() { err = st.run.resume(st, r) })
	return err
}

// Variables returns the variables of globals that a cell shows (not its
// functions, not the session's helpers), sorted by name.
func Variables(globals map[string]reflect.Value) []Variable {
	var vs []Variable
	for name, v := range globals {
		if shown(name, v) && v.Kind() != reflect.Func {
			vs = append(vs, Variable{Name: name, Value: v})
		}
	}
	sortVars(vs)
	return vs
}

func shown(name string, v reflect.Value) bool {
	return v.IsValid() && name != "_" && !strings.HasPrefix(name, rewrite.Prefix)
}

func sortVars(vs []Variable) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
}
