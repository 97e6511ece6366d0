package main

import (
	"errors"
	"fmt"
	"strings"
)

var prec = map[rune]int{'+': 1, '-': 1, '*': 2, '/': 2}

func toRPN(expr string) ([]string, error) {
	var out []string
	var ops []rune
	num := ""
	flush := func() {
		if num != "" {
			out = append(out, num)
			num = ""
		}
	}
	for _, c := range strings.ReplaceAll(expr, " ", "") {
		switch {
		case c >= '0' && c <= '9':
			num += string(c)
		case c == '(':
			ops = append(ops, c)
		case c == ')':
			flush()
			for len(ops) > 0 && ops[len(ops)-1] != '(' {
				out = append(out, string(ops[len(ops)-1]))
				ops = ops[:len(ops)-1]
			}
			if len(ops) == 0 {
				return nil, errors.New("unbalanced )")
			}
			ops = ops[:len(ops)-1]
		default:
			flush()
			for len(ops) > 0 && ops[len(ops)-1] != '(' && prec[ops[len(ops)-1]] >= prec[c] {
				out = append(out, string(ops[len(ops)-1]))
				ops = ops[:len(ops)-1]
			}
			ops = append(ops, c)
		}
	}
	flush()
	for i := len(ops) - 1; i >= 0; i-- {
		out = append(out, string(ops[i]))
	}
	return out, nil
}

func main() {
	for _, e := range []string{"1 + 2 * 3", "(1 + 2) * 3", "10 / (4 - 2) - 1", "2)"} {
		rpn, err := toRPN(e)
		fmt.Println(strings.Join(rpn, " "), err)
	}
}
