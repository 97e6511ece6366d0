package interp

import (
	"context"
	"errors"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Generic instances made outside the top level of a cell.
//
// yaegi compiles an instance of a generic function where it is first
// called, and an instance first called by a definition at the top level
// of a cell came out wrong: e := Twice(5), with
// func Twice[T ~int](x T) T { r := x; r = r * 2; return r }, gave 0, and
// p := Pair("a", 1) an empty map. The instances that a cell's statements
// call are made first in a function that is never called, as they would
// be in Go code:
//
//	func __gnnlab_inst3() { _ = Twice[int] }
//
// An instance of several type arguments is called there with zero
// values, in a branch that never runs, since yaegi took F[A, B] that is
// not called for an instance of a generic type ("not a generic type"):
//
//	func __gnnlab_inst4() { if false { Pair[string, int](*new(string), *new(int)) } }
//
// rewriter.instances collects them (rewrite_call.go, genericstd.go).

// instanceUse is an instance that a call uses: the statement that makes
// it (_ = Twice[int]), and the call's position.
type instanceUse struct {
	fun  string // Twice[int]
	text string
	pos  token.Pos
}

// useInstance records the instance that a call at pos uses: fun, with its
// ntypes type arguments, of signature sig.
func (r *rewriter) useInstance(fun string, ntypes int, sig types.Type, pos token.Pos) {
	if ntypes == 1 {
		r.instances = append(r.instances, instanceUse{fun, "_ = " + fun, pos})
		return
	}
	st, ok := sig.(*types.Signature)
	if !ok {
		return
	}
	args := make([]string, st.Params().Len())
	for k := range args {
		t, ok := typeText(st.Params().At(k).Type(), r.names)
		if !ok {
			return
		}
		args[k] = "*new(" + t + ")"
	}
	if st.Variadic() && len(args) > 0 {
		args[len(args)-1] += "..."
	}
	r.instances = append(r.instances, instanceUse{fun, "if false { " + fun + "(" + strings.Join(args, ", ") + ") }", pos})
}

// makeInstances makes the instances that r's calls need and the session
// has not made yet, each in its own function. yaegi fails to make some
// (Get[Name], with type Name string and func Get[T any](x T) T { b :=
// &box[T]{x}; return get(b) }); where they failed, the statements got
// wrong values (an empty string) or a nil pointer dereference, so the
// cell stops with an error naming the instance.
func (s *Session) makeInstances(ctx context.Context, r *rewriter) error {
	for _, in := range r.instances {
		if s.instances[in.fun] {
			continue
		}
		if s.instances == nil {
			s.instances = map[string]bool{}
		}
		s.instances[in.fun] = true
		src := "package main\nfunc " + helperPrefix + "inst" + strconv.Itoa(len(s.instances)) + "() { " + in.text + " }\n"
		if _, err := s.eval(ctx, src, nil); err != nil {
			delete(s.instances, in.fun)
			why := strings.TrimSuffix(strings.TrimPrefix(errText(err), "the interpreter cannot run this cell (internal error: "), ")")
			msg := "the interpreter cannot instantiate " + in.fun + " (" + why + ")"
			return unsupported(s.fset, &unsupportedError{in.pos, msg})
		}
	}
	return nil
}

// errText is the message of err, the value of an *Error.
func errText(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Value
	}
	return err.Error()
}
