package interp

// The session's side of the rewrites (internal/rewrite): loading the
// generic helpers and instances that rewritten cells call, and the
// methods declared for embedded interfaces.

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
)

// loadGeneric compiles the helpers of the packages that the rewriters'
// cells call, once per interpreter.
func (s *Session) loadGeneric(ctx context.Context, rws ...*rewrite.Rewriter) error {
	for _, r := range rws {
		for _, p := range []string{"cmp", "slices", "maps", "errors", "sync/atomic"} {
			if !r.Generic(p) || s.generic[p] {
				continue
			}
			if _, err := s.eval(ctx, rewrite.GenericSource(p), nil); err != nil {
				return err
			}
			if s.generic == nil {
				s.generic = map[string]bool{}
			}
			s.generic[p] = true
		}
	}
	return nil
}

// makeInstances makes the instances that r's calls need and the session
// has not made yet, each in its own function. yaegi fails to make some
// (Get[Name], with type Name string and func Get[T any](x T) T { b :=
// &box[T]{x}; return get(b) }); where they failed, the statements got
// wrong values (an empty string) or a nil pointer dereference, so the
// cell stops with an error naming the instance.
func (s *Session) makeInstances(ctx context.Context, r *rewrite.Rewriter) error {
	for _, in := range r.Instances() {
		if s.instances[in.Fun] {
			continue
		}
		if s.instances == nil {
			s.instances = map[string]bool{}
		}
		s.instances[in.Fun] = true
		src := "package main\nfunc " + helperPrefix + "inst" + strconv.Itoa(len(s.instances)) + "() { " + in.Text + " }\n"
		if _, err := s.eval(ctx, src, nil); err != nil {
			delete(s.instances, in.Fun)
			why := strings.TrimSuffix(strings.TrimPrefix(errText(err), "the interpreter cannot run this cell (internal error: "), ")")
			msg := "the interpreter cannot instantiate " + in.Fun + " (" + why + ")"
			return unsupported(s.fset, rewrite.Unsupported(in.Pos, msg))
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

// addForwards records the methods that a cell's rewrite declared for
// embedded interfaces; after a rebuild (all) they replace the earlier.
func (s *Session) addForwards(names []string, all bool) {
	if all || s.forwards == nil {
		s.forwards = map[string]bool{}
	}
	for _, n := range names {
		s.forwards[n] = true
	}
}

// forwarded reports whether r declares a method that the session
// declared for an embedded interface of an earlier cell's type: the
// session is then rebuilt, so that the type's declaration no longer
// declares it.
func (s *Session) forwarded(r *declRec) bool {
	if !r.method {
		return false
	}
	for _, n := range r.names {
		if s.forwards[n] {
			return true
		}
	}
	return false
}
