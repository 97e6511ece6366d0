package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Rewriter holds the edits of one part of a cell and what its passes
// found that the session needs to run it.
type Rewriter = rewriter

// Editor is the part's editor: its text with the edits applied.
func (r *rewriter) Editor() *Editor { return r.ed }

// Undefined are the names that go/types and the session do not know,
// less those that the hoist pass declared.
func (r *rewriter) Undefined() []types.Error { return r.undefined }

// Unknown is a range statement whose operand's type go/types did not
// know, or token.NoPos.
func (r *rewriter) Unknown() token.Pos { return r.unknown }

// Names maps import paths to the names the cell knows them by.
func (r *rewriter) Names() map[string]string { return r.names }

// SetNames sets Names, for AnyTypes after a replay.
func (r *rewriter) SetNames(names map[string]string) { r.names = names }

// HoistDecl declares the variables of the statements that the
// declarations use (hoist.go), in the declarations' rewriter.
func (r *rewriter) HoistDecl() string { return r.hoistDecl }

// Hoisted are the definitions of the statements made assignments by the
// hoist pass.
func (r *rewriter) Hoisted(st ast.Stmt) bool { return r.hoisted[st] }

// InOrder reports whether the initialisation (false) or the whole var
// spec (true) moved among the statements (hoist.go); ok is false when it
// did not move.
func (r *rewriter) InOrder(vs *ast.ValueSpec) (whole, ok bool) {
	whole, ok = r.inOrder[vs]
	return whole, ok
}

// InOrderEnd is, in the statements, the end of the last declaration
// initialised among them (hoist.go), or token.NoPos.
func (r *rewriter) InOrderEnd() token.Pos { return r.inOrderEnd }

// Forwards are the methods declared for embedded interfaces
// ("Type.Method", rewrite_embed.go).
func (r *rewriter) Forwards() []string { return r.forwards }

// Generic reports whether the part calls the generic helpers of package
// p (genericstd.go).
func (r *rewriter) Generic(p string) bool { return r.generic[p] }

// Instances are the generic instances the part's calls use
// (geninstance.go).
func (r *rewriter) Instances() []Instance { return r.instances }

// HasGoFuncs reports whether go statements of the part became declared
// functions (rewrite_go.go).
func (r *rewriter) HasGoFuncs() bool { return len(r.goFuncs) > 0 }

// GoDecls are the declarations of those functions.
func (r *rewriter) GoDecls() string { return r.goDecls() }

// AnyTypes are the registration calls of the types decls declare for
// values in an any (regtypes.go).
func (r *rewriter) AnyTypes(decls []ast.Decl) string { return r.anyTypes(decls) }

// StructTypes are the registration calls of the struct types decls
// declare, for fmt (regtypes.go).
func StructTypes(decls []ast.Decl) string { return structTypes(decls) }

// MethodTypes are the registration calls of the types decls declare or
// give methods, for conversions to interfaces (regtypes.go).
func MethodTypes(decls []ast.Decl, info *types.Info) string { return methodTypes(decls, info) }

// TypeText writes t as source for a cell, its packages named as in names
// (import path to name); false when t cannot be written there.
func TypeText(t types.Type, names map[string]string) (string, bool) { return typeText(t, names) }

// FuncName is the name a plain function gets in the interpreter.
func FuncName(fd *ast.FuncDecl) string { return funcName(fd) }

// IsIterImport reports whether is imports package iter, which only
// go/types knows (iter.go).
func IsIterImport(is *ast.ImportSpec) bool { return isIterImport(is) }

// UnsupportedError is a construct found before running that yaegi
// cannot handle.
type UnsupportedError = unsupportedError

// Pos is where the construct is.
func (e *unsupportedError) Pos() token.Pos { return e.pos }

// Msg says what the construct is and what to write instead.
func (e *unsupportedError) Msg() string { return e.msg }

// Unsupported is an *UnsupportedError at pos.
func Unsupported(pos token.Pos, msg string) error { return &unsupportedError{pos, msg} }

// Refers reports whether n mentions one of names.
func Refers(n ast.Node, names map[string]bool) bool { return refers(n, names) }

// PlainFunc reports whether fd is a plain function: no method, no generic
// function, not init.
func PlainFunc(fd *ast.FuncDecl) bool { return plainFunc(fd) }

// Names of the helpers that rewritten cells call, beside the runtime's
// (rt.Import).
const (
	Prefix = helperPrefix // of every name the session makes
	Main   = helperMain   // func main, renamed
	Err    = helperErr    // returns an interpreted error (helper source)
)

// HelperSource is compiled into every interpreter
// (internal/helpers/session/session.go).
func HelperSource() string { return helperSrc }

// GenericSource is the interpreter's source of the helpers of package p
// (cmp, slices, maps, errors or sync/atomic) that a part's calls use
// (Rewriter.Generic).
func GenericSource(p string) string {
	if p == "sync/atomic" {
		return atomicSrc
	}
	return genericPiece(p)
}

// GenericPackage is package p as go/types sees it in cells when the
// session adds generic functions or types to it (genericstd.go,
// genericatomic.go, iter.go); nil for the others.
func GenericPackage(p string) *types.Package {
	if t := genericTypes(p); t != nil {
		return t
	}
	if p == "iter" {
		return iterTypes()
	}
	return nil
}

// Importer gives go/types the compiled packages (internal/symtypes) and
// the generic functions the session adds; a package the interpreter
// lacks is empty, so that its names are not reported as undefined there
// (yaegi reports the import).
var Importer types.Importer = importer{}

// CallsMain reports whether a statement of the cell's top level calls
// main.
func CallsMain(body *ast.BlockStmt) bool { return callsMain(body) }
