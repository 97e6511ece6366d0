package main

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

func main() {
	s := "héllo, 世界"
	fmt.Println(len(s), utf8.RuneCountInString(s))
	for i, r := range "aé世" {
		fmt.Println(i, string(r), r)
	}
	rs := []rune(s)
	fmt.Println(string(rs[7:]), unicode.IsUpper('A'), unicode.IsDigit('5'), unicode.ToUpper('é') == 'É')
	b := []byte("abc")
	b[0] = 'X'
	fmt.Println(string(b), s[1], s[:1])
}
