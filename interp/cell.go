package interp

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
)

// cellFile is the file name of every piece of cell code given to yaegi
// (rewrite.CellFile).
const cellFile = rewrite.CellFile

// Names of the helpers the session makes and calls (internal/rewrite).
const (
	helperPrefix = rewrite.Prefix
	helperMain   = rewrite.Main
	helperErr    = rewrite.Err
)

// Line L of cell N is line N*rewrite.LineStride+L for the parser and
// yaegi (rewrite.VirtualLine).
func virtualLine(cell, line int) int { return rewrite.VirtualLine(cell, line) }

func cellLine(v int) (cell, line int) { return rewrite.CellLine(v) }

// chunk is a top-level piece of a cell: a declaration or a statement.
type chunk struct {
	start, end int // byte range in the cell
	decl       bool
	imp        bool // an import declaration (decl too)
}

// split cuts src into top-level declarations and statements by scanning
// its tokens: at bracket depth 0, a piece starting with import, type,
// var, const or a func with a name (or a receiver) is a declaration.
func split(src string) []chunk {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	type tok struct {
		off int
		tok token.Token
		lit string
	}
	var toks []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{file.Offset(pos), t, lit})
	}
	var chunks []chunk
	depth := 0
	start, prevEnd := -1, 0
	kinds := make([]token.Token, len(toks))
	for i, t := range toks {
		kinds[i] = t.tok
	}
	header := false // in the header of for, if or switch: `;` separates clauses
	for i, t := range toks {
		if start < 0 {
			if t.tok == token.SEMICOLON {
				continue
			}
			start = i
		}
		if depth == 0 {
			switch t.tok {
			case token.FOR, token.IF, token.SWITCH:
				header = true
			case token.LBRACE:
				header = false
			}
		}
		switch t.tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
		sep := t.tok == token.SEMICOLON && depth <= 0 && !header
		if !sep {
			// An automatic semicolon at the end of src (lit "\n") ends
			// at len(src), not past it (FuzzCells: the cell "import(0").
			prevEnd = min(t.off+tokLen(t.tok, t.lit), len(src))
		}
		if sep || i == len(toks)-1 {
			chunks = append(chunks, chunk{start: toks[start].off, end: prevEnd, decl: isDecl(kinds[start : i+1]), imp: kinds[start] == token.IMPORT})
			start = -1
			depth = max(depth, 0)
		}
	}
	return chunks
}

func tokLen(t token.Token, lit string) int {
	if lit != "" {
		return len(lit)
	}
	return len(t.String())
}

// isDecl reports whether the tokens of a piece start a declaration.
func isDecl(toks []token.Token) bool {
	at := func(k int) token.Token { return toks[k] }
	if len(toks) == 0 {
		return false
	}
	switch at(0) {
	case token.IMPORT, token.TYPE, token.VAR, token.CONST:
		return true
	case token.FUNC:
		if len(toks) < 2 {
			return false
		}
		switch at(1) {
		case token.IDENT:
			return true
		case token.LPAREN:
			// A receiver is followed by the method name; a literal's
			// parameters by its results or body.
			d := 0
			for k := 1; k < len(toks); k++ {
				switch at(k) {
				case token.LPAREN:
					d++
				case token.RPAREN:
					d--
					if d == 0 {
						return k+1 < len(toks) && at(k+1) == token.IDENT && k+2 < len(toks) && at(k+2) == token.LPAREN
					}
				}
			}
		}
	}
	return false
}

// blank returns src with the bytes of the chunks for which drop is true
// replaced by spaces, newlines kept, so that positions do not move.
func blank(src string, chunks []chunk, drop func(chunk) bool) string {
	b := []byte(src)
	for _, c := range chunks {
		if !drop(c) {
			continue
		}
		for i := c.start; i < c.end && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// blankSeparators replaces the semicolons between the chunks of src by
// spaces: once the statements of `p := f(); g(p)` are blanked, a
// semicolon left alone is no declaration ("expected declaration").
func blankSeparators(src string, chunks []chunk) string {
	b := []byte(src)
	prev := 0
	for _, c := range append(chunks, chunk{start: len(b), end: len(b)}) {
		for i := prev; i < c.start && i < len(b); i++ {
			if b[i] == ';' {
				b[i] = ' '
			}
		}
		prev = c.end
	}
	return string(b)
}

// parsedCell is a cell cut into its declarations and its statements, both
// parsed in the interpreter's file set with positions of the cell.
// rewriteCell is the cell as the rewrites see it.
func (pc *parsedCell) rewriteCell() *rewrite.Cell {
	return &rewrite.Cell{Fset: pc.fset, Decls: pc.decls, DeclSrc: pc.declSrc, Body: pc.body, StmtSrc: pc.stmtSrc,
		HasDecls: pc.hasDecls, HasStmts: pc.hasStmts, DeclBase: pc.declBase, StmtBase: pc.stmtBase}
}

type parsedCell struct {
	n        int
	fset     *token.FileSet
	src      string
	declSrc  string    // the source of decls, a Go file
	decls    *ast.File // imports and declarations
	stmtSrc  string
	body     *ast.BlockStmt // statements
	hasDecls bool
	hasStmts bool
	// The offsets in declSrc and stmtSrc of the cell's first byte: both
	// hold the cell's text, the other part blanked, at these offsets.
	declBase, stmtBase int
}

// lineDirective makes the next line line v (virtual), column 1.
func lineDirective(v int) string {
	return "//line " + cellFile + ":" + strconv.Itoa(v) + ":1\n"
}

// lineCol returns the 1-based line and column of byte offset off of src.
func lineCol(src string, off int) (line, col int) {
	line = 1 + strings.Count(src[:off], "\n")
	return line, off - strings.LastIndex(src[:off], "\n")
}

// parseCell splits and parses cell number n in fset. The error is a
// scanner.ErrorList with cell positions.
// onlyLabels reports whether err lists only go/parser's undefined labels
// (DeclarationErrors), which the type checker reports in the compiler's
// words ("break label not defined: L", internal/typecheck's Refused).
func onlyLabels(err error) bool {
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return false
	}
	for _, e := range list {
		if !strings.HasPrefix(e.Msg, "label ") || !strings.HasSuffix(e.Msg, " undefined") {
			return false
		}
	}
	return true
}

func parseCell(fset *token.FileSet, n int, src string) (*parsedCell, error) {
	chunks := split(src)
	pc := &parsedCell{n: n, src: src, fset: fset}
	for _, c := range chunks {
		if c.decl {
			pc.hasDecls = true
		} else {
			pc.hasStmts = true
		}
	}
	// Go wants imports first: they go ahead of the other declarations,
	// each after a //line directive that keeps its position.
	var b strings.Builder
	b.WriteString("package main\n")
	for _, c := range chunks {
		if c.imp {
			line, col := lineCol(src, c.start)
			b.WriteString(lineDirective(virtualLine(n, line)) + strings.Repeat(" ", col-1) + src[c.start:c.end] + "\n")
		}
	}
	b.WriteString(lineDirective(virtualLine(n, 1)))
	pc.declBase = b.Len()
	b.WriteString(blankSeparators(blank(src, chunks, func(c chunk) bool { return !c.decl || c.imp }), chunks))
	pc.declSrc = b.String()
	f, err := parser.ParseFile(fset, cellFile, pc.declSrc, parser.ParseComments|parser.DeclarationErrors)
	if err != nil && !onlyLabels(err) {
		return nil, err
	}
	pc.decls = f
	pc.stmtSrc = "package main\nfunc main() {\n" + lineDirective(virtualLine(n, 1)) + blank(src, chunks, func(c chunk) bool { return c.decl }) + "\n}\n"
	pc.stmtBase = len(pc.stmtSrc) - len(src) - len("\n}\n") // blank keeps the length
	g, err := parser.ParseFile(fset, cellFile, pc.stmtSrc, 0)
	if err != nil {
		return nil, err
	}
	pc.body = g.Decls[0].(*ast.FuncDecl).Body
	return pc, nil
}

// debugSrc, set by GNNLAB_DEBUG_SRC=1, has the session write each piece
// of rewritten source it gives yaegi on standard error (for bug reports).
var debugSrc = os.Getenv("GNNLAB_DEBUG_SRC") != ""

// IsComplete says whether code is a complete cell: "complete",
// "incomplete" (with the indent for the next line: one tab per open
// bracket) or "invalid".
func (s *Session) IsComplete(code string) (status, indent string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	defer func() {
		// The cell splitter can panic on some unfinished text (an open
		// import block); going by the brackets beats killing the worker.
		if r := recover(); r != nil {
			status, indent = "invalid", ""
			if depth, dangling := openBrackets(code); depth > 0 || dangling {
				status, indent = "incomplete", strings.Repeat("\t", depth)
			}
		}
	}()
	_, err := parseCell(token.NewFileSet(), 1, code)
	if err == nil {
		return "complete", ""
	}
	list, ok := err.(scanner.ErrorList)
	if !ok || len(list) == 0 {
		return "invalid", ""
	}
	depth, dangling := openBrackets(code)
	if e := list[0]; depth > 0 || dangling || strings.HasSuffix(e.Msg, "found 'EOF'") || strings.HasSuffix(e.Msg, "not terminated") {
		return "incomplete", strings.Repeat("\t", depth)
	}
	return "invalid", ""
}

// openBrackets counts the brackets open at the end of code, and reports
// whether the last token asks for more (a comma or a binary operator, as in
// `fmt.Println("a",` or `x := 1 +`).
func openBrackets(code string) (depth int, dangling bool) {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(code))
	var sc scanner.Scanner
	sc.Init(f, []byte(code), func(token.Position, string) {}, 0)
	last := token.ILLEGAL
	for {
		_, tok, lit := sc.Scan()
		if tok == token.SEMICOLON && lit == "\n" {
			continue // automatic semicolon: the line ended
		}
		switch tok {
		case token.EOF:
			dangling = last == token.COMMA || last == token.PERIOD || last == token.ASSIGN || last == token.DEFINE || last.IsOperator() && last.Precedence() > 0
			return max(depth, 0), dangling
		case token.LBRACE, token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN, token.RBRACK:
			depth--
		}
		last = tok
	}
}
