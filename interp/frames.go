package interp

import (
	"context"
	"errors"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
)

// Where the session's functions are made, and why not at the top level.
//
// yaegi makes a function value from a function literal by copying the
// frame the literal is evaluated in (a "frame clone") and keeps the copy
// for as long as the function lives. At the top level of an evaluation
// that frame is the global one, which has a slot for every global and
// every temporary of every cell so far: each function defined there held
// a copy as long as the session was, and a session that defines a
// function in every few cells held memory growing with the square of its
// length (BenchmarkSoak).
//
// So the session makes its functions inside a function: the assignments
// of a cell's functions and variables (phase 4 of Session.runDecls) are
// the body of a function declared for them, called once. The literals
// then copy that function's frame, a few slots, and its caller's frame,
// the global one, is shared rather than copied: a function of the cell
// reads and writes globals through the root frame in either case. The
// temporaries of the initialisers live in that frame too, not in global
// slots. A variable whose type the session cannot write (var x = f() of
// an interpreted type go/types did not see) is declared where it was, at
// the top level. The function literals of a cell's statements go the same
// way: rewrite's FuncLits moves each one that uses package-level names
// only into a function declared for it (declareFuncLits below).

// defPiece is a statement of phase 4 of runDecls: an assignment of a
// function or a variable, an init body called, or (decl) a var
// declaration that must stay at the top level to declare a global.
type defPiece struct {
	text string
	decl bool
}

// defSteps returns the evaluations that run pieces in order: each run of
// assignments becomes a function, declared in one evaluation and called
// in the next; var declarations run as top-level statements.
func (s *Session) defSteps(pieces []defPiece) []string {
	var steps []string
	for len(pieces) > 0 {
		k := 0
		for k < len(pieces) && pieces[k].decl == pieces[0].decl {
			k++
		}
		var b strings.Builder
		for _, p := range pieces[:k] {
			b.WriteString(p.text)
		}
		if pieces[0].decl {
			steps = append(steps, blockPrefix+b.String())
		} else {
			s.defs++
			name := helperPrefix + "defs" + strconv.Itoa(s.defs)
			s.made = append(s.made, name)
			steps = append(steps, "package main\nfunc "+name+"() {"+b.String()+"}", blockPrefix+name+"()")
		}
		pieces = pieces[k:]
	}
	return steps
}

// declareFuncLits declares what rewrite's FuncLits made of the function
// literals of the cell's statements (above: why the functions are made
// inside functions).
func (s *Session) declareFuncLits(ctx context.Context, pc *parsedCell, rw *rewrite.Rewriter) error {
	decl, file, made := rw.FuncLits(pc.body)
	s.made = append(s.made, made...)
	if file == "" {
		return nil
	}
	if decl != "" {
		if _, err := s.eval(ctx, blockPrefix+decl, rw); err != nil {
			return err
		}
	}
	_, err := s.eval(ctx, "package main\n"+file, rw)
	return err
}

// madeName matches the name of a function the session made, as a panic's
// frame names it (main.__gnnlab_defs3.func1).
var madeName = regexp.MustCompile(`\.` + helperPrefix + `defs[0-9]+\b`)

// goName matches a function declared for a go statement's literal
// (internal/rewrite/rewrite_go.go), which Go names func1 and so on.
var goName = regexp.MustCompile(helperPrefix + `go[0-9]+\b`)

// hideMade removes the names of the functions the session made from a
// frame of a traceback: main.__gnnlab_defs3.func1 is main.func1, as it
// was when the literal was made at the top level.
func hideMade(frame string) string {
	return goName.ReplaceAllString(madeName.ReplaceAllString(frame, ""), "func1")
}

// The session's side of the rewrites (internal/rewrite): loading the
// generic helpers and instances that rewritten cells call, and the
// methods declared for embedded interfaces.

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

// Calls of generic functions that later cells declare.
//
// A method or generic function may call a generic function that a later
// cell declares (cells split in source order: func (t *Tree[T]) Walk(f
// func(T)) { walk(t.root, f) }, then func walk[T cmp.Ordered](n *node[T],
// f func(T))). go/types did not know walk, so the call got no type
// arguments (internal/rewrite/geninstance.go), and yaegi, compiling the method when
// Tree[int] was made, inferred T as walk's node struct ("does not
// implement cmp.Ordered"). So such a declaration records the names it used
// undefined (declRec.pending), and the cell that declares one of them as a
// generic function rebuilds the session (Session.rebuild), whose rewrite
// of all the declarations, type-checked together, gives the call its type
// arguments.

// markPending records in the methods and generic functions of recs
// (collect's records of pc) the names that undef reports undefined
// inside them.
func markPending(pc *parsedCell, recs []*declRec, undef []types.Error) {
	if len(undef) == 0 {
		return
	}
	k := 0
	for _, d := range pc.decls.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		r := recs[k]
		k++
		if fd, ok := d.(*ast.FuncDecl); !ok || fd.Recv == nil && fd.Type.TypeParams == nil {
			continue
		}
		for _, u := range undef {
			if u.Pos >= d.Pos() && u.Pos < d.End() {
				p := u.Fset.Position(u.Pos)
				r.pending = append(r.pending, pendingUse{name: strings.TrimPrefix(u.Msg, "undefined: "), at: cellPos(p.Line, p.Column)})
			}
		}
	}
}

// resolvesPending reports whether pc declares a generic function that a
// live record used while it was undefined.
func (s *Session) resolvesPending(pc *parsedCell) bool {
	var generic []string
	for _, d := range pc.decls.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Type.TypeParams != nil {
			generic = append(generic, fd.Name.Name)
		}
	}
	if len(generic) == 0 {
		return false
	}
	for _, old := range s.records {
		if old.dead {
			continue
		}
		for _, p := range old.pending {
			if slices.Contains(generic, p.name) {
				return true
			}
		}
	}
	return false
}

// clearPending forgets the pending names that the session now declares,
// once it has been rebuilt with them.
func (s *Session) clearPending() {
	for _, r := range s.records {
		r.pending = slices.DeleteFunc(r.pending, func(p pendingUse) bool { return s.user[p.name] != nil })
	}
}

// pendingUse is a name that a method or generic function used while no
// cell declared it, and where: "cell[N]:L:C".
type pendingUse struct{ name, at string }

// pendingWords returns err, or, when err shows the interpreter's insides
// or is a runtime error, and a method or generic function that pc
// reaches, directly or through others, used a name that is still
// undefined, Go's compile error there. The session accepts such a
// declaration (a later cell may declare the name), and yaegi compiles
// the body when a call first instantiates it, where its compiler
// panicked on the name (a mistyped name in a generic function, then a
// call of it: FuzzCells, genericbroken.cell), or the call failed at run
// time with an index out of range (a generic type's method). Go refuses
// such a program before it runs. yaegi keeps the failed instance: the
// next cell that declares something rebuilds the session
// (failedInstance).
func (s *Session) pendingWords(err error, pc *parsedCell) error {
	var e *Error
	if !errors.As(err, &e) || e.Name != nameRuntime && !showsInsides(e) {
		return err
	}
	var names []string
	for _, n := range []ast.Node{pc.decls, pc.body} {
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
			return true
		})
	}
	seen := map[*declRec]bool{}
	for len(names) > 0 {
		name := names[len(names)-1]
		names = names[:len(names)-1]
		r := s.user[name]
		if r == nil || r.dead || seen[r] {
			continue
		}
		seen[r] = true
		for _, p := range r.pending {
			if !s.knows(p.name) {
				s.failedInstance = true
				msg := "undefined: " + p.name
				return &Error{Name: nameCompile, Value: msg, Traceback: []string{p.at + ": " + msg}}
			}
		}
		names = append(names, identsOf(r.text)...)
		if r.tok == token.TYPE {
			var methods []string
			for _, n := range r.names {
				for key := range s.user {
					if strings.HasPrefix(key, n+".") {
						methods = append(methods, key)
					}
				}
			}
			slices.Sort(methods) // the same error first every time
			names = append(names, methods...)
		}
	}
	return err
}

// identsOf returns the identifiers of Go source text.
func identsOf(src string) []string {
	var sc scanner.Scanner
	fset := token.NewFileSet()
	sc.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	var ids []string
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			return ids
		}
		if tok == token.IDENT {
			ids = append(ids, lit)
		}
	}
}
