package interp

import (
	"go/scanner"
	"go/token"
	"strings"
)

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
