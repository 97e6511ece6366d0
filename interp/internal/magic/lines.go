package magic

import (
	"go/scanner"
	"go/token"
)

// Lines reports which lines of cell (split into lines) are line
// magics, or nil when none is: a line starting with % or ! where a Go
// statement of the cell's top level could start: not inside a string
// literal or a comment, nor inside brackets or a block, nor continuing a
// statement (after a binary operator, say). The magics are blanked out
// before scanning, so that their text (a quote in !echo it's) does not
// count as Go.
func Lines(cell string, lines []string) []bool {
	var cands []int
	offs := make([]int, len(lines))
	off := 0
	for k, l := range lines {
		offs[k] = off
		off += len(l) + 1
		if _, _, ok := Split(l); ok {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	b := []byte(cell)
	for _, k := range cands {
		for i := offs[k]; i < offs[k]+len(lines[k]); i++ {
			b[i] = ' '
		}
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(b))
	var sc scanner.Scanner
	sc.Init(file, b, func(token.Position, string) {}, scanner.ScanComments)
	isMagic := make([]bool, len(lines))
	found := false
	depth := 0
	stmtStart := true // no token yet, or the last one ends a statement
	next := 0         // next candidate
	for next < len(cands) {
		pos, tok, lit := sc.Scan()
		start := file.Offset(pos)
		end := start + len(lit)
		if tok == token.EOF {
			start, end = len(b), len(b)
		}
		// Candidates before this token: a magic unless inside it.
		for next < len(cands) && offs[cands[next]] <= start {
			if depth <= 0 && stmtStart {
				isMagic[cands[next]], found = true, true
			}
			next++
		}
		for next < len(cands) && offs[cands[next]] < end {
			next++ // inside a raw string or a /* comment */
		}
		switch tok {
		case token.EOF:
			next = len(cands)
		case token.COMMENT:
			continue
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		stmtStart = tok == token.SEMICOLON
	}
	if !found {
		return nil
	}
	return isMagic
}
