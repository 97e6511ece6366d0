package inspect

// CallOpen returns the offset of the "(" of the call whose arguments hold
// cursor, when a name ends right before it; -1 otherwise. Shift+Tab after
// "strings.ToUpper(" then documents strings.ToUpper, as in IPython.
func CallOpen(code string, cursor int) int {
	cursor = min(max(cursor, 0), len(code))
	depth := 0
	for i := cursor - 1; i >= 0; i-- {
		switch code[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				return -1
			}
			depth--
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			if i > 0 && isIdentByte(code[i-1]) {
				return i
			}
			return -1
		case '\n':
			if depth == 0 && i < cursor-1 {
				// Calls spanning lines are left alone: a statement
				// boundary is likelier.
				return -1
			}
		}
	}
	return -1
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
