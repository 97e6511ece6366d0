package rt

import (
	"fmt"
	"io"
	"reflect"

	"github.com/gnnlab/gnnlab/viz/display"
	yaegi "github.com/traefik/yaegi/interp"
)

// Runtime is the compiled side of the rewrites: the helpers that
// rewritten cells call as __gnnlab_rt.X (names.go), and the session's
// versions of the fmt, log, encoding/json, errors and os functions that
// must know the cells' types. A session has one for its life: the types
// its cells registered outlive a fresh interpreter (a rebuild).
type Runtime struct {
	names  typeNames   // the cells' struct types, for fmt (fmtnames.go)
	ivals  ifaceValues // the cells' types with methods, for interfaces (ifacevalue.go)
	defers deferList   // deferred calls of the running cell (defer.go)
	stdout io.Writer
	exit   chan<- int // os.Exit's status (exit.go)
}

// New returns the runtime of a session whose cells print to stdout and
// whose os.Exit sends its status on exit.
func New(stdout io.Writer, exit chan<- int) *Runtime {
	r := &Runtime{stdout: stdout, exit: exit}
	// fmt asks the method table for the names of wrapped values, and the
	// method table asks fmt's for the names of struct types.
	r.ivals.names, r.names.ivals = &r.names, &r.ivals
	return r
}

// table is the package that rewritten cells import as __gnnlab_rt: every
// name of names.go, and no other (rt_test.go).
func (r *Runtime) table() map[string]reflect.Value {
	return map[string]reflect.Value{
		"Values":        valuesFunc,
		"Error":         reflect.ValueOf(func(e error) error { return e }),
		"Equal":         reflect.ValueOf(equal),
		"ErrorPtr":      reflect.ValueOf(errorPtr),
		"ErrorType":     reflect.ValueOf((*error)(nil)),
		"Named":         namedFunc,
		"Recovered":     reflect.ValueOf(r.ivals.recovered),
		"ShiftCount":    reflect.ValueOf(shiftCount),
		"Select":        reflect.ValueOf(selectStmt),
		"Rewrap":        reflect.ValueOf(r.ivals.rewrap),
		"Methods":       reflect.ValueOf(r.ivals.register),
		"AsError":       reflect.ValueOf(r.ivals.asError),
		"AsStringer":    reflect.ValueOf(r.ivals.asStringer),
		"MustError":     reflect.ValueOf(r.ivals.mustError),
		"MustStringer":  reflect.ValueOf(r.ivals.mustStringer),
		"HasMethods":    reflect.ValueOf(r.ivals.hasMethods),
		"PrintOperand":  reflect.ValueOf(r.names.printOperand),
		"StructError":   reflect.ValueOf(structErr),
		"Wrapped":       reflect.ValueOf(wrapped),
		"NotType":       reflect.ValueOf(notType),
		"NamedKind":     reflect.ValueOf(r.ivals.registerNamed),
		"ErrorfOperand": reflect.ValueOf(r.names.errorfOperand),
		"Conversion":    reflect.ValueOf(r.ivals.conversion),
		"StringerType":  reflect.ValueOf((*fmt.Stringer)(nil)),
		"Operand":       reflect.ValueOf(r.names.operand),
		"List":          reflect.ValueOf(r.names.list),
		"Map":           reflect.ValueOf(r.names.mapOf),
		"Struct":        reflect.ValueOf(r.names.structOf),
		"Iface":         reflect.ValueOf(ifaceOrNil),
		"Ptr":           reflect.ValueOf(ptr),
		"State":         reflect.ValueOf((*fmt.State)(nil)),
		"Clear":         reflect.ValueOf(clearValue),
		"Defer":         reflect.ValueOf(r.defers.push),
		"Name":          reflect.ValueOf(r.names.register),
		"FmtAny":        reflect.ValueOf(r.names.registerAny),
		"EmptyTag":      reflect.ValueOf((*emptyTag)(nil)),
		"NewPanics":     reflect.ValueOf(r.ivals.newDeferPanic), // defer.go
		"IndexOut":      reflect.ValueOf(indexOut),
		"ConvertTo":     reflect.ValueOf(convertTo),
		"JSONValue":     reflect.ValueOf(jsonMarshalValue), // json.go
		"JSONTarget":    reflect.ValueOf(r.names.jsonTargetOf),
		"JSONDecode":    reflect.ValueOf(r.names.jsonDecode),
		"JSONEncode":    reflect.ValueOf(jsonEncode),
	}
}

// valuesFunc and namedFunc are Values and Named: one reflect.Value
// each, for yaegi's MapTypes finds them by value.
var (
	valuesFunc = reflect.ValueOf(func(v ...any) []any { return v })
	namedFunc  = reflect.ValueOf(func(name string, v any) any { return namedValue{name, v} })
)

// clearValue is the builtin clear.
func clearValue(x any) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		v.Clear()
	}
}

// Exports are the symbols to load, in order, into a fresh interpreter
// before the helper source (helpers.go): the runtime's package at Path,
// and the session's fmt, encoding/json, os.Exit, os.Args and log.Fatal.
func (r *Runtime) Exports() []yaegi.Exports {
	return []yaegi.Exports{
		{
			Path + "/" + Path: r.table(),
			// Interpreted values passed to Values are wrapped so that they
			// keep these methods (yaegi's "MapTypes").
			".": {"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{valuesFunc: {
				reflect.TypeFor[display.Renderer](),
				reflect.TypeFor[fmt.Stringer](),
				reflect.TypeFor[error](),
			}, namedFunc: {
				reflect.TypeFor[fmt.Formatter](),
				reflect.TypeFor[error](),
				reflect.TypeFor[fmt.Stringer](),
			}})},
		},
		r.exitSymbols(),
		r.names.fmtSymbols(r.stdout),
		r.names.jsonSymbols(), // json.go
	}
}

// LateExports are the symbols loaded after Exports, which need what the
// interpreter has then: log's printing functions around its own Output,
// and the wrapping of interpreted values passed to fmt's functions.
func (r *Runtime) LateExports(i *yaegi.Interpreter) []yaegi.Exports {
	var e []yaegi.Exports
	if out, ok := i.Symbols("log")["log"]["Output"].Interface().(func(int, string) error); ok {
		e = append(e, yaegi.Exports{"log/log": r.names.logSymbols(out)}) // logprint.go
	}
	return append(e, printMapTypes(i)) // fmtnames.go
}

// TakeDefers returns the deferred calls of the running cell, and forgets
// them.
func (r *Runtime) TakeDefers() []func() { return r.defers.take() }

// PanicValue is a panic value as the cell's code would see it.
func (r *Runtime) PanicValue(v any) any { return r.ivals.panicValue(v) }
