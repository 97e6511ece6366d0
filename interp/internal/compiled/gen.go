package compiled

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// pkgMark stands for the plugin's import name in a wrapper's text until
// the plugin is known.
const pkgMark = "\x00pkg\x00"

// instrument inserts the interrupt check at the entry of every function
// and the top of every loop body of declaration d (whose text starts at
// offset from of tf), and replaces os.Exit and log.Fatal*, which would
// end the worker, and os.Args, os.Stdin and fmt.Scan*, which are the
// worker's (a cell's input is the session's).
//
// A counted loop whose body is straight-line code ("for i := 0; i < n;
// i++") tests its counter and checks every 4,096 iterations, or not at
// all inside another loop, whose back-edge check then stops it.
//
// A function gets the check at its entry only if it calls something that
// may come back to cell code (a method, a function of the cell, a
// function value): a leaf such as a small method of a vector type ends
// by itself, and stays small enough for the compiler to inline.
func instrument(text string, from int, tf *token.File, d ast.Decl, imports map[string]string, checks bool) string {
	type ins struct {
		at   int
		del  int
		text string
	}
	var edits []ins
	check := func(b *ast.BlockStmt) {
		if b != nil && checks {
			edits = append(edits, ins{at: tf.Offset(b.Lbrace) + 1 - from, text: checkName + ".Check(); "})
		}
	}
	// Loops inside another loop of the same function: a counted leaf
	// loop there needs no check of its own, the enclosing loop's
	// back-edge stops it (at most one run of it later).
	nested := map[ast.Node]bool{}
	var stack []ast.Node
	ast.Inspect(d, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			for i := len(stack) - 1; i >= 0; i-- {
				if _, ok := stack[i].(*ast.FuncLit); ok {
					break
				}
				switch stack[i].(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					nested[n] = true
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	ast.Inspect(d, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if callsBack(n.Body, imports) {
				check(n.Body)
			}
		case *ast.FuncLit:
			if callsBack(n.Body, imports) {
				check(n.Body)
			}
		case *ast.ForStmt:
			if v := countedLeaf(n, imports); v != "" && nested[n] {
				break
			} else if v != "" && checks {
				// One test of a register instead of a load of the flag
				// each iteration: the loop still stops within 4,096.
				edits = append(edits, ins{at: tf.Offset(n.Body.Lbrace) + 1 - from, text: "if " + v + "&4095 == 0 { " + checkName + ".Check() }; "})
				break
			}
			check(n.Body)
		case *ast.RangeStmt:
			check(n.Body)
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if !ok || x.Obj != nil {
				break
			}
			repl := ""
			switch {
			case x.Name == "os" && (n.Sel.Name == "Exit" || n.Sel.Name == "Args" || n.Sel.Name == "Stdin"):
				repl = rtName + "." + n.Sel.Name
			case x.Name == "fmt" && (n.Sel.Name == "Scan" || n.Sel.Name == "Scanln" || n.Sel.Name == "Scanf"):
				repl = rtName + "." + n.Sel.Name
			case x.Name == "log" && strings.HasPrefix(n.Sel.Name, "Fatal"):
				repl = rtName + "." + n.Sel.Name
			case imports[x.Name] == "flag" && FlagFuncs[n.Sel.Name] != "":
				repl = rtName + "." + FlagFuncs[n.Sel.Name]
			}
			if repl != "" {
				at := tf.Offset(n.Pos()) - from
				edits = append(edits, ins{at: at, del: tf.Offset(n.End()) - from - at, text: repl})
			}
		}
		return true
	})
	sort.Slice(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	for _, e := range edits {
		text = text[:e.at] + e.text + text[e.at+e.del:]
	}
	return text
}

// FlagFuncs are the functions of package flag that work on
// flag.CommandLine, and what compiled cells call instead (package
// cellrt's, on the session's own set of flags); interpreted cells get
// the same (package interp).
var FlagFuncs = map[string]string{
	"Parse": "FlagParse", "Parsed": "FlagParsed", "Args": "FlagArgs", "Arg": "FlagArg",
	"NArg": "FlagNArg", "NFlag": "FlagNFlag", "Lookup": "FlagLookup", "Set": "FlagSetValue",
	"Visit": "FlagVisit", "VisitAll": "FlagVisitAll", "PrintDefaults": "FlagPrintDefaults",
	"Var": "FlagVar", "Func": "FlagFunc", "BoolFunc": "FlagBoolFunc", "TextVar": "FlagTextVar",
	"Bool": "FlagBool", "BoolVar": "FlagBoolVar", "Int": "FlagInt", "IntVar": "FlagIntVar",
	"Int64": "FlagInt64", "Int64Var": "FlagInt64Var", "Uint": "FlagUint", "UintVar": "FlagUintVar",
	"Uint64": "FlagUint64", "Uint64Var": "FlagUint64Var", "String": "FlagString",
	"StringVar": "FlagStringVar", "Float64": "FlagFloat64", "Float64Var": "FlagFloat64Var",
	"Duration": "FlagDuration", "DurationVar": "FlagDurationVar",
}

// wrapper returns the interpreter's function that calls the compiled
// one, or "" for what the interpreter does not call (methods, generic
// functions, init).
func wrapper(src string, base int, tf *token.File, fd *ast.FuncDecl) string {
	if fd.Recv != nil || fd.Name.Name == "init" || fd.Name.Name == "_" || (fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0) {
		return ""
	}
	text := func(n ast.Node) string { return src[tf.Offset(n.Pos())-base : tf.Offset(n.End())-base] }
	var params, args []string
	k := 0
	for _, f := range fd.Type.Params.List {
		typ := text(f.Type)
		names := f.Names
		if len(names) == 0 {
			names = []*ast.Ident{{Name: "_"}}
		}
		for _, n := range names {
			name := n.Name
			if name == "_" {
				name = fmt.Sprintf("%s%d", argName, k)
			}
			k++
			params = append(params, name+" "+typ)
			if _, ok := f.Type.(*ast.Ellipsis); ok {
				name += "..."
			}
			args = append(args, name)
		}
	}
	results := ""
	if fd.Type.Results != nil {
		results = " " + text(fd.Type.Results)
		if len(fd.Type.Results.List) == 1 && len(fd.Type.Results.List[0].Names) == 0 && fd.Type.Results.Opening == token.NoPos {
			results = " " + text(fd.Type.Results.List[0].Type)
		}
	}
	call := pkgMark + ".F" + fd.Name.Name + "(" + strings.Join(args, ", ") + ")"
	if fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
		call = "return " + call
	}
	return fmt.Sprintf("func %s(%s)%s { %s }", fd.Name.Name, strings.Join(params, ", "), results, call)
}

// generate writes the plugin's source: the declarations, the imports
// they use and the Symbols table; binds are the interpreter's
// declarations that reach them.
func (t *Tier) generate(name string, all []*def, df *ast.File, imports map[string]string) (src []byte, binds []string) {
	used := map[string]bool{}
	for _, d := range all {
		for _, n := range d.deps {
			if imports[n] != "" {
				used[n] = true
			}
		}
	}
	var b strings.Builder
	b.WriteString("// Code generated by gnnlab's compiled tier. DO NOT EDIT.\n\npackage main\n\nimport (\n")
	var names []string
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\t%s %q\n", n, imports[n])
	}
	embeds := false
	for _, is := range df.Imports {
		if is.Name != nil && is.Name.Name == "_" {
			fmt.Fprintf(&b, "\t_ %s\n", is.Path.Value)
			embeds = embeds || is.Path.Value == `"embed"`
		}
	}
	for _, d := range all {
		if d.embed != nil && !embeds {
			b.WriteString("\t_ \"embed\"\n") // a variable of an earlier cell
			embeds = true
		}
	}
	// cellrt only where the code calls it (os.Exit, flag, ...): it links
	// fmt, log and flag into the plugin (check.go of package check).
	usesRT := false
	for _, d := range all {
		usesRT = usesRT || strings.Contains(d.src, rtName+".")
	}
	if usesRT {
		fmt.Fprintf(&b, "\t%s %q\n", rtName, RuntimePath)
	}
	fmt.Fprintf(&b, "\t%s %q\n)\n\n", checkName, CheckPath)
	fmt.Fprintf(&b, "var _ = %s.Check\n\n", checkName)
	if used["os"] {
		b.WriteString("var _ = os.Exit\n")
	}
	if used["log"] {
		b.WriteString("var _ = log.Fatal\n")
	}
	if used["fmt"] {
		b.WriteString("var _ = fmt.Sprint\n")
	}
	for _, n := range names {
		if imports[n] == "flag" { // its functions are cellrt's (FlagFuncs)
			fmt.Fprintf(&b, "var _ = %s.NewFlagSet\n", n)
		}
	}
	for _, d := range all {
		b.WriteString(d.src + "\n\n")
	}
	alias := "gnnlab" + name
	// Generic types are not bound in the interpreter: a function whose
	// signature names one is not either.
	generic := map[string]bool{}
	for _, d := range all {
		if d.generic && d.kind == token.TYPE {
			for _, n := range d.names {
				generic[n] = true
			}
		}
	}
	// The values, not their reflect.Values: the host takes those (open),
	// so that a plugin links package reflect only where the cell uses
	// it (84 KiB less of relocated type data a plugin that does not,
	// memory that stays private as long as the process runs).
	b.WriteString("//line :1\n// Symbols is what the interpreter reaches.\nvar Symbols = map[string]any{\n")
	for _, d := range all {
		if d.generic {
			continue
		}
		for _, n := range d.names {
			switch {
			case n == "_" || n == "init" || d.method:
			case d.kind == token.FUNC:
				fmt.Fprintf(&b, "\t%q: %s,\n", "F"+n, n)
				if d.sigSrc != "" && !mentions(d.fn.Type, generic) {
					binds = append(binds, strings.ReplaceAll(d.sigSrc, pkgMark, alias))
				}
			case d.kind == token.TYPE:
				fmt.Fprintf(&b, "\t%q: (*%s)(nil),\n", "T"+n, n)
				// Under its own name too: the session's type checker finds
				// a compiled type of a value by its name (typesof.go).
				fmt.Fprintf(&b, "\t%q: (*%s)(nil),\n", n, n)
				binds = append(binds, fmt.Sprintf("type %s = %s.T%s", n, alias, n))
			case d.kind == token.CONST && d.bindConst:
				fmt.Fprintf(&b, "\t%q: %s,\n", "C"+n, n)
				binds = append(binds, fmt.Sprintf("var %s = %s.C%s", n, alias, n))
			case d.kind == token.VAR:
				fmt.Fprintf(&b, "\t%q: &%s,\n", "P"+n, n)
			}
		}
	}
	b.WriteString("}\n")
	return []byte(b.String()), binds
}

// editList collects edits of a cell's text (offsets in the cell) and the
// plugins the edited text imports.
type editList struct {
	edits   []edit
	imports map[string]string // path -> name
}

type edit struct {
	from, to int
	text     string
}

func (e *editList) replace(from, to int, text string) {
	e.edits = append(e.edits, edit{from, to, text})
}

// blank replaces text with spaces, keeping its line breaks.
func (e *editList) blank(from, to int) { e.edits = append(e.edits, edit{from, to, "\x00blank"}) }

func (e *editList) alias(path string) string {
	if e.imports == nil {
		e.imports = map[string]string{}
	}
	name := "gnnlab" + path[strings.LastIndex(path, "/")+1:]
	e.imports[path] = name
	return name
}

func (e *editList) apply(text string) string {
	sort.Slice(e.edits, func(i, j int) bool { return e.edits[i].from > e.edits[j].from })
	for _, ed := range e.edits {
		if ed.from < 0 || ed.to > len(text) || ed.from > ed.to {
			continue
		}
		repl := ed.text
		if repl == "\x00blank" {
			repl = strings.Map(func(r rune) rune {
				if r == '\n' {
					return r
				}
				return ' '
			}, text[ed.from:ed.to])
		}
		text = text[:ed.from] + repl + text[ed.to:]
	}
	return text
}

func (e *editList) importLines(p *Plugin) []string {
	if p != nil {
		e.alias(p.Path)
	}
	var lines []string
	for path, name := range e.imports {
		lines = append(lines, fmt.Sprintf("import %s %q", name, path))
	}
	sort.Strings(lines)
	return lines
}

// callsBack reports whether body holds a call that may lead back to cell
// code: any call but of a builtin, a conversion to a predeclared type or
// a function of an imported package. (A function literal inside body
// is checked on its own.)
func callsBack(body *ast.BlockStmt, imports map[string]string) bool {
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch f := ast.Unparen(call.Fun).(type) {
		case *ast.Ident:
			if f.Obj == nil && types.Universe.Lookup(f.Name) != nil {
				return true
			}
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok && x.Obj == nil && imports[x.Name] != "" {
				return true
			}
		case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
			return true // a conversion
		}
		found = true
		return false
	})
	return found
}

// countedLeaf returns the variable of a loop "for i := 0; i < n; i++"
// (an int: its initial value is an integer literal; < <= > >= and ++ --)
// whose body has no loop and no call that may come back to cell code, or
// "".
func countedLeaf(f *ast.ForStmt, imports map[string]string) string {
	init, ok := f.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return ""
	}
	v, ok := init.Lhs[0].(*ast.Ident)
	if lit, isLit := init.Rhs[0].(*ast.BasicLit); !ok || !isLit || lit.Kind != token.INT {
		return ""
	}
	post, ok := f.Post.(*ast.IncDecStmt)
	if !ok {
		return ""
	}
	if x, ok := post.X.(*ast.Ident); !ok || x.Name != v.Name {
		return ""
	}
	if c, ok := f.Cond.(*ast.BinaryExpr); !ok || (c.Op != token.LSS && c.Op != token.LEQ && c.Op != token.GTR && c.Op != token.GEQ) {
		return ""
	}
	if callsBack(f.Body, imports) {
		return ""
	}
	leaf := true
	ast.Inspect(f.Body, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit, *ast.GoStmt, *ast.SelectStmt:
			leaf = false
		case *ast.AssignStmt:
			// i = ... inside the body: not a plain counted loop.
			for _, l := range n.(*ast.AssignStmt).Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == v.Name {
					leaf = false
				}
			}
		}
		return leaf
	})
	if !leaf {
		return ""
	}
	return v.Name
}

// mentions reports whether node uses one of names.
func mentions(node ast.Node, names map[string]bool) bool {
	found := false
	ast.Inspect(node, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}
