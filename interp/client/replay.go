package client

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// replay re-runs on the fresh worker the cells that had succeeded on the
// worker that died, in order, without their results. A cell that read
// standard input is skipped (replaying it would wait for input nobody
// expects); a cell that fails is reported and the replay goes on. The
// result then names each variable, function, type and constant that the
// skipped and failed cells declare, and that the session therefore lacks.
func (c *Client) replay(ctx context.Context, fn func(workerproto.Event)) (Result, error) {
	c.mu.Lock()
	n := len(c.lost)
	c.mu.Unlock()
	if n == 0 {
		c.note("Nothing to replay: no worker has died since the session started, or its cells were replayed.\n")
		return Result{}, nil
	}
	c.note(fmt.Sprintf("Replaying %d cells...\n", n))
	var report []string // one line per cell not restored
	missing := map[string]bool{}
	for i := 1; ; i++ {
		c.mu.Lock()
		if len(c.lost) == 0 {
			c.mu.Unlock()
			break
		}
		code := c.lost[0]
		stdin := c.stdinCells[code]
		c.mu.Unlock()
		var why string
		if stdin {
			why = "skipped: it reads standard input"
		} else {
			res, err := c.run(ctx, Cell{Code: code, Silent: true}, false, fn)
			if err != nil {
				return Result{}, err
			}
			if ce := res.Error; ce != nil {
				why = "failed: " + firstLine(ce)
				if name, from, ok := c.undefinedFrom(ce); ok {
					missing[name] = true
					why += fmt.Sprintf(" (%s came from cell %d, which did not succeed: an interrupted or failed cell's effects are not replayed)", name, from)
				}
			}
		}
		c.mu.Lock()
		// A crash during the replay has moved the list: re-check it.
		if len(c.lost) > 0 && c.lost[0] == code {
			c.lost = c.lost[1:]
			if why == "" {
				c.succeeded = append(c.succeeded, code)
			}
		}
		c.mu.Unlock()
		if why == "" {
			continue
		}
		names := declaredNames(code)
		for _, name := range names {
			missing[name] = true
		}
		line := fmt.Sprintf("cell %d of %d %s", i, n, why)
		if len(names) > 0 {
			line += " (not restored: " + strings.Join(names, ", ") + ")"
		}
		report = append(report, line)
		c.note("%replay: " + line + "\n" + indent(code) + "\n")
	}
	if len(report) == 0 {
		c.note("Done: the state is restored.\n")
		return Result{}, nil
	}
	var names []string
	for name := range missing {
		names = append(names, name)
	}
	sort.Strings(names)
	value := fmt.Sprintf("%d of %d cells were not restored", len(report), n)
	if len(names) > 0 {
		value += "; the session lacks " + strings.Join(names, ", ")
	}
	tb := append([]string{"%replay: " + value + ":"}, report...)
	tb = append(tb, "Run the cells that define them again (a cell that depended on an interrupted or failed cell needs that cell's effects first).")
	return Result{Error: &workerproto.CellError{Name: workerproto.EnameReplayIncomplete, Value: value, Traceback: tb}}, nil
}

// undefinedFrom finds, for a replayed cell that failed with "undefined:
// name", the last cell of the history that declares name and did not
// succeed (an interrupted cell keeps its effects up to the interruption,
// which a replay cannot restore).
func (c *Client) undefinedFrom(ce *workerproto.CellError) (name string, from int, ok bool) {
	text := ce.Value + "\n" + strings.Join(ce.Traceback, "\n")
	_, rest, found := strings.Cut(text, "undefined: ")
	if !found {
		return "", 0, false
	}
	words := strings.FieldsFunc(rest, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) })
	if len(words) == 0 {
		return "", 0, false
	}
	name = words[0]
	c.mu.Lock()
	h := append([]Entry(nil), c.history...)
	c.mu.Unlock()
	for k := len(h) - 1; k >= 0; k-- {
		if !h[k].OK && slices.Contains(declaredNames(h[k].Code), name) {
			return name, h[k].N, true
		}
	}
	return "", 0, false
}

func firstLine(ce *workerproto.CellError) string {
	for _, l := range ce.Traceback {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ce.Name + ": " + ce.Value
}

func indent(code string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(code, "\n"), "\n", "\n    ")
}

// declaredNames lists the top-level names a cell declares: its var,
// const, type and func declarations (not methods) and the variables of
// its top-level := statements, in order. The cell is cut at the
// semicolons (written or implied by newlines) outside brackets, and each
// piece parsed as a declaration, else as a statement; a piece that is
// neither declares nothing.
func declaredNames(code string) []string {
	var names []string
	seen := map[string]bool{}
	add := func(id *ast.Ident) {
		if id != nil && id.Name != "_" && !seen[id.Name] {
			seen[id.Name] = true
			names = append(names, id.Name)
		}
	}
	for _, piece := range topLevel(code) {
		if f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+piece, 0); err == nil {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						add(d.Name)
					}
				case *ast.GenDecl:
					genNames(d, add)
				}
			}
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+piece+"\n}", 0)
		if err != nil || len(f.Decls) == 0 {
			continue
		}
		for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, e := range st.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							add(id)
						}
					}
				}
			case *ast.DeclStmt:
				if d, ok := st.Decl.(*ast.GenDecl); ok {
					genNames(d, add)
				}
			}
		}
	}
	return names
}

func genNames(d *ast.GenDecl, add func(*ast.Ident)) {
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			add(s.Name)
		case *ast.ValueSpec:
			for _, id := range s.Names {
				add(id)
			}
		}
	}
}

// topLevel cuts code at the semicolons outside brackets.
func topLevel(code string) []string {
	var sc scanner.Scanner
	src := []byte(code)
	file := token.NewFileSet().AddFile("", -1, len(src))
	sc.Init(file, src, nil, 0)
	var pieces []string
	depth, start := 0, 0
	for {
		pos, tok, lit := sc.Scan()
		off := file.Offset(pos)
		switch tok {
		case token.EOF:
			if s := strings.TrimSpace(code[start:]); s != "" {
				pieces = append(pieces, s)
			}
			return pieces
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.SEMICOLON:
			if depth == 0 {
				end := off
				if lit == "\n" {
					end = min(off, len(code))
				}
				if s := strings.TrimSpace(code[start:end]); s != "" {
					pieces = append(pieces, s)
				}
				start = min(end+1, len(code))
			}
		}
	}
}
