package main

import "fmt"

func lex(s string) []string {
	var toks []string
	i := 0
	start := 0
start:
	if i >= len(s) {
		goto end
	}
	if s[i] == ' ' {
		i++
		goto start
	}
	start = i
	if s[i] >= '0' && s[i] <= '9' {
		goto number
	}
	toks = append(toks, string(s[i]))
	i++
	goto start
number:
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	toks = append(toks, "NUM("+s[start:i]+")")
	goto start
end:
	return toks
}

func main() {
	fmt.Println(lex("12 + 3*(45 - 6)"))
	fmt.Println(len(lex("")))
}
