package compiled

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/declname"
)

// Import is an import of a cell: Name is the name it is known by.
type Import struct{ Name, Path string }

// Cell is what the tier needs of a cell, as the session split it.
type Cell struct {
	N    int
	Text string
	// DeclSrc is a Go file of the cell's declarations (statements
	// blanked), its imports first; the cell's byte i is DeclSrc's
	// DeclBase+i. StmtSrc and StmtBase are the same for the statements.
	DeclSrc  string
	DeclBase int
	StmtSrc  string
	StmtBase int
	HasStmts bool
	Imports  []Import // of earlier cells
	// Interpreted reports whether an earlier, interpreted cell declared
	// name.
	Interpreted func(name string) bool
	// Module reports whether an import path is a package of a module
	// that %go get added (not in the cells' module).
	Module func(path string) bool
	// ModuleDir is the folder of the session's module, whose go.mod
	// and go.sum hold what %go get added ("" before the first).
	ModuleDir string
	// CompiledOnly reports whether a package of Module is one that the
	// interpreter cannot run (it refuses its import, with the reason):
	// no interpreted version of its types exists, so compiled
	// declarations may use it outside a program too.
	CompiledOnly func(path string) bool
	// Bound reports whether the interpreter has such a package as a
	// package plugin (Tier.Package): then the cell's import of it stays.
	Bound func(path string) bool
}

// Result is what the session runs instead of the cell.
type Result struct {
	Text     string  // the cell for the interpreter: compiled declarations bound to the plugin
	Plugin   *Plugin // nil when nothing was compiled
	Notice   string  // why the cell's declarations run interpreted ("" if they do not)
	Kind     string  // a short key of Notice, to say each reason once
	Compiled []Decision
}

// Decision says how one declaration runs.
type Decision struct {
	Cell     int    // the cell that declared it
	In       int    // the cell whose plugin holds it (compiled)
	Name     string // methods as "T.m"
	Compiled bool
	Why      string
}

// def is a compiled top-level declaration, live in the tier.
type def struct {
	names   []string // "T.m" for methods
	kind    token.Token
	method  bool
	generic bool
	fn      *ast.FuncDecl // for a function's wrapper
	src     string        // instrumented, after its //line directive
	deps    []string      // names it uses that it does not declare
	cell    int
	epoch   int
	pkg     string // import path of the plugin that holds it
	effects bool   // a var initialised by a call
	sigSrc  string // a function's wrapper, for the interpreter ("" if none)
	orig    string // the declaration as written
	// bindConst says that a constant is of a compiled type: the
	// interpreter gets its value from the plugin.
	bindConst bool
	decl      ast.Decl
	// unexported is a field or method that interpreted code could not
	// reach in a compiled type.
	unexported string
	// embed is what a variable's //go:embed directive names: pattern ->
	// the file, copied into every plugin that declares it.
	embed map[string]string
}

// Tier is the compiled tier of one session.
type Tier struct {
	b     *Builder
	defs  map[string]*def // by name; methods "T.m"
	vars  map[string]*def // compiled variables the interpreter reaches through their plugin
	epoch int             // counts cells that ran statements
	log   []Decision
	// NoChecks leaves the interrupt checks out of later cells (to
	// measure their cost: such cells cannot be interrupted).
	NoChecks bool
	// Timings of the last compiled cell.
	Last struct{ Build, Load time.Duration }
	pkgs int // package plugins built (Package)
}

// New starts a tier over a builder.
func New(b *Builder) *Tier {
	return &Tier{b: b, defs: map[string]*def{}, vars: map[string]*def{}}
}

// UseGoCommand makes the go command build every later cell, as it did
// before the direct builds (to measure what they save).
func (t *Tier) UseGoCommand() { t.b.direct = nil }

// KeepPages leaves the file pages of later plugins resident once loaded
// (to measure what dropping them saves).
func (t *Tier) KeepPages() { t.b.keepPages = true }

// Around sets what runs the loading of each plugin (Builder.Around).
func (t *Tier) Around(f func(load func())) { t.b.Around = f }

// Decisions returns how the declarations of the cells so far run: the
// latest decision for each name, in the order of their cells.
func (t *Tier) Decisions() []Decision {
	last := map[string]int{}
	for i, d := range t.log {
		last[d.Name] = i
	}
	var out []Decision
	for i, d := range t.log {
		if last[d.Name] == i {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Cell < out[j].Cell })
	return out
}

// Log returns every decision so far, in order.
func (t *Tier) Log() []Decision { return t.log }

// Close removes the tier's module.
func (t *Tier) Close() error { return t.b.Close() }

// Prefixes of the names generated code uses; cells do not use them.
const (
	rtName    = "gnnlabrt"
	checkName = "gnnlabcheck"
	argName   = "gnnlabarg"
)

// RuntimePath is the package compiled cells link for exit, arguments,
// input and flags; CheckPath the one they link for interrupts.
const (
	RuntimePath = Module + "/interp/cellrt"
	CheckPath   = RuntimePath + "/check"
)

// Compile compiles what it can of the cell. An error is one of the
// cell's (a panic in an init), to report as the cell's; a declaration that
// cannot be compiled gives a Result with a Notice and the cell as it was
// (with compiled variables qualified).
func (t *Tier) Compile(ctx context.Context, c Cell) (Result, error) {
	defer func() {
		if c.HasStmts {
			t.epoch++
		}
	}()
	fset := token.NewFileSet()
	df, err := parser.ParseFile(fset, "decls.go", c.DeclSrc, parser.ParseComments)
	if err != nil {
		return Result{Text: c.Text}, nil // the session reports it
	}
	edits := &editList{}
	// Variables that the cell's statements declare shadow compiled ones.
	sf, err := parser.ParseFile(fset, "stmts.go", c.StmtSrc, 0)
	if err != nil {
		return Result{Text: c.Text}, nil
	}
	body := sf.Decls[0].(*ast.FuncDecl).Body
	tf := fset.File(df.Pos())
	sfile := fset.File(sf.Pos())
	declOff := func(p token.Pos) int { return tf.Offset(p) - c.DeclBase }
	stmtOff := func(p token.Pos) int { return sfile.Offset(p) - c.StmtBase }

	imports := map[string]string{} // name -> path, the session's then the cell's
	for _, im := range c.Imports {
		imports[im.Name] = im.Path
	}
	for _, is := range df.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		imports[importName(is, p)] = p
	}

	res, reason, kind := t.plan(ctx, c, fset, df, imports)
	demoted := ""
	if reason != "" {
		demoted = t.demote(declared(df))
		t.epoch++ // its declarations are interpreted: they may hold values of compiled types
		for _, d := range df.Decls {
			for _, n := range declname.Of(d) {
				if n != "" && n != "_" {
					t.log = append(t.log, Decision{Cell: c.N, Name: n, Why: reason})
				}
			}
			// The cell redeclares these: compiled ones are superseded.
			for _, n := range declname.Of(d) {
				t.forget(n)
			}
		}
		res = Result{Notice: reason, Kind: kind}
		t.qualify(df.Unresolved, declOff, edits)
	} else if res.Plugin != nil {
		for _, d := range df.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				continue
			}
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				// Constants stay in the interpreter's text too, unless
				// they are of a compiled type (bound to the plugin's).
				if names := declname.Of(d); len(names) == 0 || t.defs[names[0]] == nil || !t.defs[names[0]].bindConst {
					continue
				}
			}
			edits.blank(declOff(declStart(d)), declOff(d.End()))
		}
	}
	for _, st := range body.List {
		for _, n := range stmtDefines(st) {
			delete(t.vars, n)
		}
	}
	t.qualify(sf.Unresolved, stmtOff, edits)
	if res.Plugin != nil {
		// import _ "embed" is the plugin's; the interpreter refuses
		// package embed.
		blankEmbedImport(c.Text, edits)
		// So is the import of a package that only compiled code can
		// use, unless the cell's statements use it (the interpreter
		// then refuses the import, saying why).
		blankCompiledOnly(c, df, body, func(p token.Pos) int { return tf.Offset(p) }, edits)
	}
	text := edits.apply(c.Text)
	if res.Plugin != nil || len(edits.imports) > 0 {
		text += "\n" + strings.Join(edits.importLines(res.Plugin), "\n")
	}
	if res.Plugin != nil {
		text += "\n" + res.Text
	}
	if demoted != "" {
		text += "\n" + demoted
	}
	res.Text = text
	return res, nil
}

// declared returns the names a file declares.
func declared(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, d := range f.Decls {
		for _, n := range declname.Of(d) {
			names[n] = true
		}
	}
	return names
}

// demote returns the text of the compiled declarations made since the
// last statements ran, for the interpreter to declare them again, and
// forgets them: an interpreted cell that refers to compiled types and
// functions mixes the two worlds, which yaegi handles in simple cases
// only, and while no statement has run, no value or state of them
// exists, so nothing is lost. Declarations with effects (init, a
// variable initialised by a call) are not run twice: then nothing is
// demoted. Those that the cell redeclares are left out.
func (t *Tier) demote(skip map[string]bool) string {
	var ds []*def
	for _, d := range t.liveDefs() {
		if d.epoch != t.epoch {
			continue
		}
		// Nor is a variable that embeds a file: the interpreter would
		// declare it empty (it cannot embed).
		if d.effects || d.embed != nil || d.kind == token.FUNC && d.names[0] == "init" {
			return ""
		}
		if !overlaps(d.names, skip) {
			ds = append(ds, d)
		}
	}
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.orig + "\n")
		for _, n := range d.names {
			t.log = append(t.log, Decision{Cell: d.cell, Name: n, Why: "interpreted again: a later cell that runs interpreted refers to the declarations compiled since statements last ran"})
			delete(t.defs, n)
			delete(t.vars, n)
		}
	}
	return b.String()
}

// forget drops a compiled name that an interpreted cell redeclares.
func (t *Tier) forget(name string) {
	delete(t.defs, name)
	delete(t.vars, name)
	for k := range t.defs {
		if strings.HasPrefix(k, name+".") {
			delete(t.defs, k)
		}
	}
}

// qualify rewrites the interpreter's references to compiled variables
// as references to their plugin's.
func (t *Tier) qualify(unresolved []*ast.Ident, off func(token.Pos) int, edits *editList) {
	for _, id := range unresolved {
		d, ok := t.vars[id.Name]
		if !ok {
			continue
		}
		alias := edits.alias(d.pkg)
		// Through a pointer: yaegi cannot take the address of a
		// compiled package's variable, but can of *p.
		edits.replace(off(id.Pos()), off(id.End()), "(*"+alias+".P"+id.Name+")")
	}
}

// plan decides whether the cell's declarations compile and, if they do,
// builds and loads them. A non-empty reason says why not.
func (t *Tier) plan(ctx context.Context, c Cell, fset *token.FileSet, df *ast.File, imports map[string]string) (res Result, reason, kind string) {
	var own []*def
	declared := map[string]bool{}
	worth, hasMain := false, false
	for _, d := range df.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		nd := t.newDef(c, fset, df, d, imports)
		own = append(own, nd)
		for _, n := range nd.names {
			declared[n] = true
		}
		// Functions and types are worth a plugin; a cell of variables
		// and constants alone is not (it would cost a build and gain
		// nothing: its initialisers run once).
		if nd.kind == token.FUNC || nd.kind == token.TYPE {
			worth = true
		}
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			hasMain = true
		}
	}
	// Files embedded with //go:embed are read from the session's working
	// directory (the notebook's) when the cell compiles, as go build
	// reads them from the package's; the interpreter cannot embed.
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	embeds, why := embedFiles(df, wd)
	if why != "" {
		return Result{}, why, "embed"
	}
	for _, nd := range own {
		if nd.embed = embeds[nd.decl]; nd.embed != nil {
			worth = true
		}
	}
	if !worth {
		// Variables and constants of compiled types, or that use
		// constants of compiled types (variables in the interpreter, so
		// no array bounds or keys there), are compiled with them: yaegi
		// mixes its own declarations with compiled types badly
		// ("incomplete type").
		for _, nd := range own {
			for _, n := range nd.deps {
				if d, ok := t.defs[n]; ok && (d.kind == token.TYPE || d.bindConst) && !declared[n] {
					worth = true
				}
			}
		}
	}
	if !worth {
		return Result{}, "", ""
	}
	for _, is := range df.Imports {
		if n := importName(is, ""); n == "." {
			return Result{}, "a dot import stays interpreted", "dot"
		}
	}
	usesModule := false
	if c.Module != nil {
		for _, nd := range own {
			for _, n := range nd.deps {
				if p := imports[n]; p != "" && c.Module(p) {
					only := c.CompiledOnly != nil && c.CompiledOnly(p)
					if (!hasMain && !only) || c.ModuleDir == "" {
						// Interpreted cells get the module's packages
						// interpreted from source: a compiled declaration
						// would hand them values of other types.
						return Result{}, fmt.Sprintf("it imports %s, of a module that %%go get added: compiled cells link those only in a program (a cell with func main)", p), "module"
					}
					usesModule = true
				}
			}
		}
	}
	if usesModule {
		if err := t.b.requireModules(ctx, c.ModuleDir); err != nil {
			return Result{}, "the modules that %go get added could not be required by the cells' module: " + err.Error(), "module"
		}
	}
	for _, nd := range own {
		if nd.generic && !hasMain {
			return Result{}, fmt.Sprintf("%s is generic: generic declarations are interpreted (the interpreter cannot reach a compiled one) unless the cell is a program with func main", nd.names[0]), "generic"
		}
		if (nd.kind == token.TYPE || nd.method) && !hasMain {
			if n := nd.unexported; n != "" {
				return Result{}, fmt.Sprintf("type %s has the unexported field or method %s, which interpreted cells could not reach in a compiled type (a cell with func main compiles it)", nd.names[0], n), "unexported"
			}
		}
	}
	for _, nd := range own {
		if nd.kind == token.VAR && !hasMain && !basicVar(nd.decl) && !embedVar(nd.decl) {
			// The interpreter reaches a compiled variable through a
			// pointer into the plugin, and yaegi cannot select a field
			// through it (var l1 = nn.NewLinear(2, 3) then l1.W:
			// "undefined selector W"), so only variables of basic types
			// compile outside a program, and what uses the others stays
			// interpreted with them.
			return Result{}, fmt.Sprintf("it declares the variable %s, not of a basic type: such variables are interpreted (the interpreter cannot select a field through a compiled one) unless the cell is a program with func main", nd.names[0]), "variable"
		}
		if n := emptyStruct(nd.decl); n != "" {
			return Result{}, fmt.Sprintf("type %s is a struct without fields: the session tells such types apart by a hidden field that compiled code lacks", n), "empty struct"
		}
		if sel := sessionType(nd.decl, imports); sel != "" {
			return Result{}, fmt.Sprintf("%s uses %s, which cells get in the session's interruptible version: a compiled declaration could not take the interpreter's value", nd.names[0], sel), "session type"
		}
	}
	ownTypes := map[string]bool{}
	for _, nd := range own {
		if nd.kind == token.TYPE {
			for _, n := range nd.names {
				ownTypes[n] = true
			}
		}
	}
	for _, nd := range own {
		if nd.kind != token.CONST {
			continue
		}
		if mentions(nd.decl, ownTypes) {
			nd.bindConst = true
		}
		for _, n := range nd.deps {
			if d, ok := t.defs[n]; ok && d.kind == token.TYPE && !declared[n] {
				nd.bindConst = true
			}
		}
	}
	// What the cell uses of earlier cells: compiled declarations are
	// declared again in this plugin (a plugin cannot import another),
	// which is exact while no statement has run since they were compiled
	// (no value of their types or state of their variables can exist
	// yet), and always for functions and constants.
	include := map[*def]bool{}
	var visit func(names []string) string
	visit = func(names []string) string {
		for _, n := range names {
			if declared[n] || imports[n] != "" || types.Universe.Lookup(n) != nil && !t.shadowed(n) {
				continue
			}
			d, ok := t.defs[n]
			if !ok {
				if c.Interpreted != nil && c.Interpreted(n) {
					return fmt.Sprintf("it uses %s, which an interpreted cell declared", n)
				}
				continue // undefined: the build says so
			}
			if include[d] {
				continue
			}
			if why := t.includable(d, n); why != "" {
				return why
			}
			include[d] = true
			if d.kind == token.TYPE {
				for k, m := range t.defs {
					if strings.HasPrefix(k, n+".") && !include[m] {
						include[m] = true
						if why := visit(m.deps); why != "" {
							return why
						}
					}
				}
			}
			if why := visit(d.deps); why != "" {
				return why
			}
		}
		return ""
	}
	for _, nd := range own {
		if why := visit(nd.deps); why != "" {
			return Result{}, why, "interpreted-use"
		}
	}
	// Compiled functions of earlier cells that call what this cell
	// redeclares are compiled again with it, so that the new definition
	// takes effect everywhere (when they can be: see includable).
	for changed := true; changed; {
		changed = false
		for _, d := range t.liveDefs() {
			if include[d] || d.kind != token.FUNC || d.method || d.generic || overlaps(d.names, declared) {
				continue
			}
			if !usesAny(d.deps, declared, include) {
				continue
			}
			if t.includable(d, d.names[0]) != "" || visit(d.deps) != "" {
				continue
			}
			include[d] = true
			changed = true
		}
	}
	var all []*def
	for d := range include {
		if !overlaps(d.names, declared) {
			all = append(all, d)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].cell != all[j].cell {
			return all[i].cell < all[j].cell
		}
		return all[i].src < all[j].src
	})
	all = append(all, own...)
	// The go command names a plugin after its package's import path, and
	// a process cannot load two plugins of one name: the session's id
	// keeps cells of sessions apart.
	name := fmt.Sprintf("c%d_%s", c.N, t.b.id)
	path := ModPath + "/" + name
	src, binds := t.generate(name, all, df, imports)
	// An embedding variable declared again (in a later cell's plugin)
	// embeds its files again.
	var embedded map[string]string
	for _, d := range all {
		for pat, file := range d.embed {
			if embedded == nil {
				embedded = map[string]string{}
			}
			embedded[pat] = file
		}
	}
	p, err := t.b.BuildEmbedding(ctx, name, src, embedded)
	if err != nil {
		if r, ok := err.(*Reason); ok && usesModule {
			// A module's requirements may have moved a package that the
			// binary holds to another version: this cell's problem, not
			// every cell's.
			return Result{}, r.Text, "module load"
		}
		if r, ok := err.(*Reason); ok {
			return Result{}, r.Text, "load"
		}
		if be, ok := err.(*BuildError); ok {
			return Result{}, "it did not build as a plugin: " + be.Error(), "build"
		}
		return Result{}, err.Error(), "build"
	}
	t.Last.Build, t.Last.Load = p.Build, p.Load
	for _, d := range all {
		d.pkg = path
		if d.cell == c.N {
			d.epoch = t.epoch
		}
		for _, n := range d.names {
			t.defs[n] = d
			delete(t.vars, n)
			if d.kind == token.VAR && n != "_" {
				t.vars[n] = d
			}
			t.log = append(t.log, Decision{Cell: d.cell, In: c.N, Name: n, Compiled: true, Why: fmt.Sprintf("compiled (in cell %d's plugin)", c.N)})
		}
	}
	if hasMain {
		t.epoch++ // main runs now
	}
	return Result{Plugin: p, Text: strings.Join(binds, "\n")}, "", ""
}

func overlaps(names []string, set map[string]bool) bool {
	for _, n := range names {
		if set[n] || set[strings.SplitN(n, ".", 2)[0]] {
			return true
		}
	}
	return false
}

func usesAny(deps []string, declared map[string]bool, include map[*def]bool) bool {
	for _, n := range deps {
		if declared[n] {
			return true
		}
	}
	return false
}

func (t *Tier) liveDefs() []*def {
	seen := map[*def]bool{}
	var out []*def
	for _, d := range t.defs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].cell < out[j].cell })
	return out
}

// shadowed reports whether a compiled declaration uses a predeclared name.
func (t *Tier) shadowed(n string) bool { _, ok := t.defs[n]; return ok }

// includable says why d (named n) cannot be declared again in a later
// plugin, or "".
func (t *Tier) includable(d *def, n string) string {
	switch {
	case d.kind == token.FUNC && !d.method, d.kind == token.CONST:
		return ""
	case d.epoch != t.epoch && d.kind == token.TYPE:
		return fmt.Sprintf("it uses type %s of cell %d, and statements have run since: values of it may exist, and a plugin can only declare it anew (another type)", n, d.cell)
	case d.epoch != t.epoch && d.kind == token.VAR:
		return fmt.Sprintf("it uses variable %s of cell %d, and statements have run since: a plugin can only declare it anew (losing its value)", n, d.cell)
	case d.effects:
		return fmt.Sprintf("it uses variable %s of cell %d, whose initialiser calls a function (it would run again)", n, d.cell)
	}
	return ""
}

// newDef reads one declaration of the cell.
func (t *Tier) newDef(c Cell, fset *token.FileSet, f *ast.File, d ast.Decl, imports map[string]string) *def {
	tf := fset.File(f.Pos())
	nd := &def{names: declname.Of(d), cell: c.N, decl: d}
	switch d := d.(type) {
	case *ast.FuncDecl:
		nd.kind, nd.method = token.FUNC, d.Recv != nil
		nd.generic = d.Type.TypeParams != nil && len(d.Type.TypeParams.List) > 0
		if d.Recv != nil {
			for _, f := range d.Recv.List {
				ast.Inspect(f.Type, func(n ast.Node) bool {
					if _, ok := n.(*ast.IndexExpr); ok {
						nd.generic = true
					}
					if _, ok := n.(*ast.IndexListExpr); ok {
						nd.generic = true
					}
					return true
				})
			}
		}
		nd.fn = d
		nd.sigSrc = wrapper(c.DeclSrc, 0, tf, d)
		if d.Recv != nil && !ast.IsExported(d.Name.Name) {
			nd.unexported = nd.names[0]
		}
	case *ast.GenDecl:
		nd.kind = d.Tok
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.TypeParams != nil && len(s.TypeParams.List) > 0 || isConstraint(s.Type) {
					nd.generic = true
				}
				if st, ok := s.Type.(*ast.StructType); ok {
					for _, f := range st.Fields.List {
						for _, n := range f.Names {
							if !ast.IsExported(n.Name) && nd.unexported == "" {
								nd.unexported = s.Name.Name + "." + n.Name
							}
						}
						if len(f.Names) == 0 {
							if n := declname.Recv(f.Type); n != "" && !ast.IsExported(n) && nd.unexported == "" {
								nd.unexported = s.Name.Name + "." + n
							}
						}
					}
				}
			case *ast.ValueSpec:
				for _, v := range s.Values {
					ast.Inspect(v, func(n ast.Node) bool {
						if call, ok := n.(*ast.CallExpr); ok {
							if id, ok := call.Fun.(*ast.Ident); !ok || types.Universe.Lookup(id.Name) == nil {
								nd.effects = true
							}
						}
						return !nd.effects
					})
				}
			}
		}
	}
	nd.deps = freeNames(d)
	start := declStart(d)
	from, to := tf.Offset(start), tf.Offset(d.End())
	text := c.DeclSrc[from:to]
	nd.orig = text
	text = instrument(text, from, tf, d, imports, !t.NoChecks)
	// The session's //line directive maps DeclSrc's lines to the cell's.
	pos := fset.Position(start)
	nd.src = fmt.Sprintf("//line %s:%d:%d\n%s", pos.Filename, pos.Line, pos.Column, text)
	return nd
}

// declStart is where a declaration starts: its doc comment, without the
// session's //line directives.
func declStart(d ast.Decl) token.Pos {
	var doc *ast.CommentGroup
	switch d := d.(type) {
	case *ast.FuncDecl:
		doc = d.Doc
	case *ast.GenDecl:
		doc = d.Doc
	}
	if doc != nil {
		for _, c := range doc.List {
			if !strings.HasPrefix(c.Text, "//line ") {
				return c.Pos()
			}
		}
	}
	return d.Pos()
}

// freeNames returns the identifiers a declaration uses that it does
// not declare (the parser's unresolved ones within the declaration),
// without field names of composite literals and selectors.
func freeNames(d ast.Decl) []string {
	seen := map[string]bool{}
	var out []string
	ast.Inspect(d, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(m ast.Node) bool { return visitIdent(m, seen, &out) })
			return false
		case *ast.KeyValueExpr:
			// A key may be a field name; take it only if it may be a
			// value (conservatively: it is added, a spare name costs
			// nothing unless it is an interpreted one).
			return true
		case *ast.FuncDecl:
			// Its name is not a use.
			for _, part := range []ast.Node{n.Recv, n.Type, n.Body} {
				if part != nil && !reflect.ValueOf(part).IsNil() {
					ast.Inspect(part, func(m ast.Node) bool {
						if s, ok := m.(*ast.SelectorExpr); ok {
							ast.Inspect(s.X, func(m ast.Node) bool { return visitIdent(m, seen, &out) })
							return false
						}
						return visitIdent(m, seen, &out)
					})
				}
			}
			return false
		case *ast.Ident:
			visitIdent(n, seen, &out)
		}
		return true
	})
	return out
}

func visitIdent(n ast.Node, seen map[string]bool, out *[]string) bool {
	id, ok := n.(*ast.Ident)
	if !ok {
		return true
	}
	if id.Obj != nil || id.Name == "_" || seen[id.Name] {
		return true
	}
	seen[id.Name] = true
	*out = append(*out, id.Name)
	return true
}

// importName is the name a file knows an import by.
func importName(is *ast.ImportSpec, path string) string {
	if is.Name != nil {
		return is.Name.Name
	}
	if path == "" {
		path, _ = strconv.Unquote(is.Path.Value)
	}
	name := path[strings.LastIndex(path, "/")+1:]
	// gonum.org/v1/plot and math/rand/v2: the element before a version.
	if len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		p := path[:strings.LastIndex(path, "/")]
		name = p[strings.LastIndex(p, "/")+1:]
	}
	return strings.ReplaceAll(name, "-", "_")
}

// stmtDefines returns the names a top-level statement of a cell declares.
func stmtDefines(st ast.Stmt) []string {
	var names []string
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, l := range st.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					names = append(names, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		return declname.Of(st.Decl)
	}
	return names
}

// isConstraint reports whether an interface type has type elements
// (int | float64, ~string) or embeds comparable, which only constraints
// may.
func isConstraint(e ast.Expr) bool {
	it, ok := e.(*ast.InterfaceType)
	if !ok {
		return false
	}
	for _, f := range it.Methods.List {
		if len(f.Names) == 0 {
			switch t := f.Type.(type) {
			case *ast.BinaryExpr, *ast.UnaryExpr:
				return true
			case *ast.Ident:
				if t.Name == "comparable" && t.Obj == nil {
					return true
				}
			}
		}
	}
	return false
}

// sessionTypes are the standard types that interpreted cells get in the
// session's own interruptible version (interp/blocking.go): a compiled
// declaration that names one would be handed the session's value and
// refuse it.
var sessionTypes = map[string]map[string]bool{"sync": {"WaitGroup": true}}

// sessionType returns "sync.WaitGroup" when decl names one of
// sessionTypes, or "".
func sessionType(decl ast.Decl, imports map[string]string) string {
	found := ""
	ast.Inspect(decl, func(n ast.Node) bool {
		se, ok := n.(*ast.SelectorExpr)
		if !ok || found != "" {
			return found == ""
		}
		if x, ok := se.X.(*ast.Ident); ok {
			if p := imports[x.Name]; sessionTypes[p][se.Sel.Name] {
				found = p + "." + se.Sel.Name
			}
		}
		return true
	})
	return found
}

// emptyStruct returns the name of a struct type without fields that decl
// declares, or "": the interpreter's rewrites give such types a hidden
// field so that their reflect types differ (rewrite's twins pass), and the
// session's tables then reach for a field that a compiled one lacks.
func emptyStruct(decl ast.Decl) string {
	gd, ok := decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.TYPE {
		return ""
	}
	for _, sp := range gd.Specs {
		ts := sp.(*ast.TypeSpec)
		if st, ok := ts.Type.(*ast.StructType); ok && (st.Fields == nil || len(st.Fields.List) == 0) {
			return ts.Name.Name
		}
	}
	return ""
}

// basicVar reports whether every variable decl declares has a basic type
// (int, float64, string, ...), written or given by basic literals.
func basicVar(decl ast.Decl) bool {
	gd, ok := decl.(*ast.GenDecl)
	if !ok {
		return false
	}
	basic := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		_, ok = types.Universe.Lookup(id.Name).(*types.TypeName)
		return ok && id.Name != "error" && id.Name != "any"
	}
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		if vs.Type != nil {
			if !basic(vs.Type) {
				return false
			}
			continue
		}
		for _, v := range vs.Values {
			if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.SUB {
				v = u.X
			}
			if _, ok := v.(*ast.BasicLit); !ok {
				return false
			}
		}
	}
	return true
}

// blankCompiledOnly blanks the cell's imports of packages that only
// compiled code can use (Cell.CompiledOnly) whose names its statements do
// not use: the cell's compiled declarations used them. off is the offset
// in c.DeclSrc, which holds the imports ahead of the cell's text, each as
// the cell writes it.
func blankCompiledOnly(c Cell, df *ast.File, body *ast.BlockStmt, off func(token.Pos) int, edits *editList) {
	if c.CompiledOnly == nil {
		return
	}
	inStmts := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				inStmts[id.Name] = true
			}
		}
		return true
	})
	for _, d := range df.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		var drop []*ast.ImportSpec
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			p, _ := strconv.Unquote(is.Path.Value)
			if c.Module != nil && c.Module(p) && c.CompiledOnly(p) && !inStmts[importName(is, p)] && (c.Bound == nil || !c.Bound(p)) {
				drop = append(drop, is)
			}
		}
		if len(drop) == 0 {
			continue
		}
		from, to := off(gd.Pos()), off(gd.End())
		if from < 0 || to > len(c.DeclSrc) {
			continue
		}
		at := strings.Index(c.Text, c.DeclSrc[from:to])
		switch {
		case at < 0:
		case len(drop) == len(gd.Specs):
			edits.blank(at, at+to-from)
		case gd.Lparen.IsValid():
			for _, is := range drop {
				edits.blank(at+off(is.Pos())-from, at+off(is.End())-from)
			}
		}
	}
}
