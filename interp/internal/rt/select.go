package rt

import (
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
)

// selectStmt is a select statement of a cell's function (Select), which
// the pass "selects" of internal/rewrite writes as a switch on its
// result.
//
// yaegi v0.16.1 keeps one slice of cases per select statement and fills
// it on each run: goroutines in the same select at once received from
// each other's channels, and a worker pool hung. Here each call builds
// its own cases.
//
// kinds has a letter a clause, in the statement's order: 'r' a receive
// (one argument: the channel), 's' a send (two: the channel and the
// value), 'd' the default (none). The result is the index of the clause
// chosen, the value received and whether it came from a send (v, ok :=
// <-ch); the value is the channel's zero value when it was closed. A nil
// channel's clause is never chosen, as in Go.
//
// The call also waits on gnnlib/interrupt's signal, which the session
// raises when it interrupts a cell. In the goroutine that runs the cell
// (yaegi's Eval) it then returns -1, which no clause of the switch
// matches: the cell stops at its next step. Any other goroutine
// (one of an earlier cell, or one the cell started) waits until the
// signal is cleared, then selects again: returning into interpreted code
// while the cell stops would end it for good, as it ends a goroutine of
// an earlier cell that the session's time.Sleep wakes.
func selectStmt(kinds string, args ...any) (int, any, bool) {
	cases := make([]reflect.SelectCase, 0, len(kinds)+1)
	k := 0
	for _, c := range kinds {
		switch c {
		case 'r':
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: chanValue(args[k])})
			k++
		case 's':
			ch := chanValue(args[k])
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectSend, Chan: ch, Send: sendValue(ch, args[k+1])})
			k += 2
		case 'd':
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectDefault})
		default:
			panic("gnnlab: select: bad clause kind " + string(c))
		}
	}
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv})
	for {
		if interrupt.Raised() {
			if inEval() {
				return -1, nil, false
			}
			for interrupt.Raised() {
				time.Sleep(2 * time.Millisecond)
			}
		}
		cases[len(kinds)].Chan = reflect.ValueOf(interrupt.Context().Done())
		i, v, ok := reflect.Select(cases)
		switch {
		case i == len(kinds):
			continue // interrupted
		case cases[i].Dir != reflect.SelectRecv:
			return i, nil, false
		}
		return i, v.Interface(), ok
	}
}

// evalEntry is the function that runs a cell's code in its goroutine.
const evalEntry = "github.com/traefik/yaegi/interp.(*Interpreter).EvalWithContext"

// inEval reports whether the calling goroutine is the one that runs the
// cell: the bottom of its stack is yaegi's EvalWithContext.
func inEval() bool {
	pc := make([]uintptr, 256)
	for {
		n := runtime.Callers(1, pc)
		if n < len(pc) {
			pc = pc[:n]
			break
		}
		pc = make([]uintptr, 2*len(pc))
	}
	frames := runtime.CallersFrames(pc)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, evalEntry) {
			return true
		}
		if !more {
			return false
		}
	}
}

// chanValue is the channel of a clause; a nil channel (or nil) is the
// zero Value, whose clause reflect.Select ignores.
func chanValue(ch any) reflect.Value {
	v := reflect.ValueOf(ch)
	if !v.IsValid() || v.IsNil() {
		return reflect.Value{}
	}
	return v
}

// sendValue is x as the element type of ch: an untyped constant came as
// its default type (ch <- 1 on a chan float64), nil as no value, and a
// value of a cell's type with methods in yaegi's wrapper (bareValue).
func sendValue(ch reflect.Value, x any) reflect.Value {
	v := reflect.ValueOf(x)
	if !ch.IsValid() {
		return v
	}
	elem := ch.Type().Elem()
	for range 2 {
		switch {
		case !v.IsValid():
			return reflect.Zero(elem)
		case v.Type().AssignableTo(elem):
			return v
		case v.Type().ConvertibleTo(elem):
			return v.Convert(elem)
		case wrapped(x):
			x = bareValue(x)
			v = reflect.ValueOf(x)
			continue
		}
		break
	}
	return v // reflect.Select panics with the types
}
