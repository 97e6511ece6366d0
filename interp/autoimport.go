package interp

import (
	"context"
	"fmt"
	"go/ast"
	"go/types"
	"sort"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/inspect"
	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
)

// Automatic imports.
//
// A cell that uses a package it did not import (fmt.Println without
// import "fmt"), as goimports would add it, gets the import: a name that
// neither the cell nor the session defines, used as X in X.Sel, is looked
// up among the standard library and gnnlab packages of the symbol tables
// by package name (math/rand/v2 is rand); the package must have every
// name the cell selects from it (its table's, or the generic ones the
// session provides: rand.N, slices.Sorted), and of several such packages the one with the shortest path wins
// (math/rand over math/rand/v2). The session imports it for good, as an
// import in the cell would, and writes a line on standard error saying so.

// packagesNamed returns the import paths of the preloaded packages with
// name, shortest first.
func packagesNamed(name string) []string {
	var ps []string
	for p := range inspect.Packages().ByPath {
		if pathName(p) == name && !strings.Contains(p, "internal") {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if len(ps[i]) != len(ps[j]) {
			return len(ps[i]) < len(ps[j])
		}
		return ps[i] < ps[j]
	})
	return ps
}

// providedGeneric reports whether the session provides the generic
// function or type name of package p (internal/rewrite/genericstd.go), which no symbol
// table holds.
func providedGeneric(p, name string) bool {
	t := rewrite.GenericPackage(p)
	return t != nil && t.Scope().Lookup(name) != nil
}

// autoImport imports the packages that the cell uses without importing;
// it reports whether it imported any.
func (s *Session) autoImport(ctx context.Context, pc *parsedCell, undef []types.Error) (bool, error) {
	if len(undef) == 0 {
		return false, nil
	}
	missing := map[string]bool{}
	for _, u := range undef {
		missing[strings.TrimPrefix(u.Msg, "undefined: ")] = true
	}
	sels := map[string]map[string]bool{}
	for _, n := range []ast.Node{pc.decls, pc.body} {
		ast.Inspect(n, func(x ast.Node) bool {
			if sel, ok := x.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && missing[id.Name] {
					if sels[id.Name] == nil {
						sels[id.Name] = map[string]bool{}
					}
					sels[id.Name][sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	names := make([]string, 0, len(sels))
	for n := range sels {
		names = append(names, n)
	}
	sort.Strings(names)
	var imps []importRec
	var src strings.Builder
	for _, name := range names {
	candidates:
		for _, p := range packagesNamed(name) {
			exp := inspect.Packages().ByPath[p]
			for sel := range sels[name] {
				if _, ok := exp[sel]; !ok && !providedGeneric(p, sel) {
					continue candidates
				}
			}
			imps = append(imps, importRec{name, p})
			fmt.Fprintf(&src, "import %q\n", p)
			break
		}
	}
	if len(imps) == 0 {
		return false, nil
	}
	if _, err := s.eval(ctx, "package main\n"+src.String(), nil); err != nil {
		return false, err
	}
	s.commit(nil, imps)
	paths := make([]string, len(imps))
	for k, im := range imps {
		paths[k] = fmt.Sprintf("%q", im.path)
	}
	fmt.Fprintf(s.errw, "interp: added import %s\n", strings.Join(paths, ", "))
	return true, nil
}
