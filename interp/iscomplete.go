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
	_, err := parseCell(token.NewFileSet(), 1, code)
	if err == nil {
		return "complete", ""
	}
	list, ok := err.(scanner.ErrorList)
	if !ok || len(list) == 0 {
		return "invalid", ""
	}
	if e := list[0]; strings.HasSuffix(e.Msg, "found 'EOF'") || strings.HasSuffix(e.Msg, "not terminated") {
		return "incomplete", strings.Repeat("\t", openBrackets(code))
	}
	return "invalid", ""
}

// openBrackets counts the brackets open at the end of code.
func openBrackets(code string) int {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(code))
	var sc scanner.Scanner
	sc.Init(f, []byte(code), func(token.Position, string) {}, 0)
	depth := 0
	for {
		_, tok, _ := sc.Scan()
		switch tok {
		case token.EOF:
			return max(depth, 0)
		case token.LBRACE, token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN, token.RBRACK:
			depth--
		}
	}
}
