package compiled

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// PackagePlugin is a package of a module that %go get added, built into
// a plugin for the interpreter: its exported names as a yaegi symbol
// table, so that cells call the compiled package (the interpreter
// refused its source).
type PackagePlugin struct {
	Path    string                   // the package's import path
	Name    string                   // its package name
	Symbols map[string]reflect.Value // as yaegi's tables hold them
	// Generic are its exported generic functions and types, which a
	// plugin cannot hand the interpreter (they have no values): only
	// compiled code uses them.
	Generic []string
	// GenericFuncs are the generic functions, as go/types sees them.
	GenericFuncs []types.Object
	Build, Load  time.Duration
}

// Package builds the package at path, of the session's module at modDir,
// into a plugin for the interpreter. Every later plugin that links the
// package links the same build, so values of its types pass between the
// interpreter and compiled cells unchanged.
func (t *Tier) Package(ctx context.Context, path, modDir string) (*PackagePlugin, error) {
	b := t.b
	if err := b.requireModules(ctx, modDir); err != nil {
		return nil, fmt.Errorf("the modules that %%go get added could not be required by the cells' module: %w", err)
	}
	pkg, err := b.packageTypes(ctx, path)
	if err != nil {
		return nil, err
	}
	src, untyped, generic := packageSource(pkg)
	t.pkgs++
	name := fmt.Sprintf("p%d_%s", t.pkgs, b.id)
	p, err := b.BuildEmbedding(ctx, name, src, nil)
	if err != nil {
		if r, ok := err.(*Reason); ok {
			return nil, fmt.Errorf("%s", r.Text)
		}
		return nil, err
	}
	syms := map[string]reflect.Value{}
	for k, v := range p.Symbols {
		if n, ok := strings.CutPrefix(k, "&"); ok {
			syms[n] = v.Elem() // a variable: yaegi reads and sets it
		} else {
			syms[k] = v
		}
	}
	for n, c := range untyped {
		syms[n] = reflect.ValueOf(c)
	}
	var funcs []types.Object
	for _, n := range generic {
		if f, ok := pkg.Scope().Lookup(n).(*types.Func); ok {
			funcs = append(funcs, f)
		}
	}
	return &PackagePlugin{Path: path, Name: pkg.Name(), Symbols: syms, Generic: generic, GenericFuncs: funcs, Build: p.Build, Load: p.Load}, nil
}

// Instances builds a plugin of instantiations of generic functions, for
// the interpreter: exprs are Go expressions (lo.Map[int, string]), each
// becoming the symbol "I" and its index; imports are the packages they
// name (path -> name).
func (t *Tier) Instances(ctx context.Context, imports map[string]string, exprs []string) (*PackagePlugin, error) {
	var b strings.Builder
	b.WriteString("package main\n\n")
	paths := make([]string, 0, len(imports))
	for p := range imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "import %s %q\n", imports[p], p)
	}
	b.WriteString("\n// Symbols is what the interpreter reaches.\nvar Symbols = map[string]any{\n")
	for k, e := range exprs {
		fmt.Fprintf(&b, "\t\"I%d\": %s,\n", k, e)
	}
	b.WriteString("}\n")
	t.pkgs++
	name := fmt.Sprintf("i%d_%s", t.pkgs, t.b.id)
	p, err := t.b.BuildEmbedding(ctx, name, []byte(b.String()), nil)
	if err != nil {
		if r, ok := err.(*Reason); ok {
			return nil, fmt.Errorf("%s", r.Text)
		}
		return nil, err
	}
	return &PackagePlugin{Path: p.Path, Name: name, Symbols: p.Symbols, Build: p.Build, Load: p.Load}, nil
}

// packageTypes returns the package at path as go/types sees it, from the
// export data that go list -export writes (building the package, in
// plugin mode, into the go command's cache, where the plugin's build
// finds it), downloading what the module cache lacks.
func (b *Builder) packageTypes(ctx context.Context, path string) (*types.Package, error) {
	args := append([]string{"list", "-buildmode=plugin"}, b.env.Flags...)
	args = append(args, "-deps", "-export", "-f", "{{.ImportPath}}={{.Export}}", path)
	cmd := exec.CommandContext(ctx, b.env.GoBin, args...)
	cmd.Dir = b.dir
	// With the user's GOPROXY, unlike the cells' builds (GOPROXY=off, so
	// that a cell never waits for the network): a package that %go get
	// added may import a module at the version that the binary's go.mod
	// names but whose source nothing downloaded (gota's dataframe imports
	// golang.org/x/net, which the binary requires and does not link).
	cmd.Env = append(os.Environ(), slices.DeleteFunc(slices.Clone(b.env.Vars), func(v string) bool { return v == "GOPROXY=off" })...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &BuildError{Output: stderr.String(), Tool: "list"}
	}
	files := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p, file, ok := strings.Cut(sc.Text(), "="); ok && file != "" {
			files[p] = file
		}
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(p string) (io.ReadCloser, error) {
		f, ok := files[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(f)
	})
	return imp.Import(path)
}

// packageSource returns the plugin of a package for the interpreter: its
// Symbols map holds each exported function, each type as a nil pointer
// to it, each variable by its address (key "&name") and each typed
// constant, as yaegi's tables do. Untyped constants are returned apart
// (yaegi holds them as constant.Values), and so are the generic names.
func packageSource(pkg *types.Package) (src []byte, untyped map[string]any, generic []string) {
	const alias = "gnnlabpkg"
	var b strings.Builder
	fmt.Fprintf(&b, "package main\n\nimport %s %q\n\n// Symbols is what the interpreter reaches.\nvar Symbols = map[string]any{\n", alias, pkg.Path())
	untyped = map[string]any{}
	scope := pkg.Scope()
	names := scope.Names()
	sort.Strings(names)
	for _, n := range names {
		obj := scope.Lookup(n)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Func:
			if o.Type().(*types.Signature).TypeParams().Len() > 0 {
				generic = append(generic, n)
				continue
			}
			fmt.Fprintf(&b, "\t%q: %s.%s,\n", n, alias, n)
		case *types.TypeName:
			if named, ok := o.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
				generic = append(generic, n)
				continue
			}
			if a, ok := o.Type().(*types.Alias); ok && a.TypeParams().Len() > 0 {
				generic = append(generic, n)
				continue
			}
			fmt.Fprintf(&b, "\t%q: (*%s.%s)(nil),\n", n, alias, n)
		case *types.Var:
			fmt.Fprintf(&b, "\t%q: &%s.%s,\n", "&"+n, alias, n)
		case *types.Const:
			if basic, ok := o.Type().(*types.Basic); ok && basic.Info()&types.IsUntyped != 0 {
				untyped[n] = o.Val()
				continue
			}
			fmt.Fprintf(&b, "\t%q: %s.%s,\n", n, alias, n)
		}
	}
	b.WriteString("}\n")
	text := b.String()
	if !strings.Contains(text, alias+".") {
		// Nothing but generic names and untyped constants: the plugin
		// links the package all the same (instantiations link it again).
		text = strings.Replace(text, "import "+alias+" ", "import _ ", 1)
	}
	return []byte(text), untyped, generic
}
