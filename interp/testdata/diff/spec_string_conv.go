package main

import (
	"fmt"
	"unicode/utf8"
)

func main() {
	s := "héllo, 世界"
	fmt.Println(len(s), utf8.RuneCountInString(s))
	b := []byte(s)
	r := []rune(s)
	fmt.Println(len(b), len(r))
	fmt.Println(string(r[1]), string(b[:2]), string(r[7:]))
	fmt.Println(string(rune(65)), string(rune(0x4e16)))
	for i, c := range "aé世" {
		fmt.Printf("%d:%c(%d) ", i, c, utf8.RuneLen(c))
	}
	fmt.Println()
	bad := string([]byte{0xff, 'a'})
	for _, c := range bad {
		fmt.Printf("%U ", c)
	}
	fmt.Println(utf8.ValidString(bad))
	fmt.Printf("%q %+q %x % x\n", "é", "é", "é", "é")
	rs := []rune{'G', 'o', '!'}
	fmt.Println(string(rs), len(string(rs)))
	buf := utf8.AppendRune(nil, '界')
	fmt.Println(buf, utf8.FullRune(buf[:2]))
}
