package main

import (
	"fmt"
	"unicode/utf8"
)

func main() {
	s := "héllo, 世界"
	for i, r := range s {
		if r > 127 {
			fmt.Println(i, string(r), r)
		}
	}
	fmt.Println(len(s), utf8.RuneCountInString(s), s[1], s[:2] == "h\xc3")
	bs := []byte(s)
	bs[0] = 'H'
	fmt.Println(string(bs[:6]), s[7:])
	r, size := utf8.DecodeRuneInString("世")
	fmt.Println(r, size, string(rune(0x4e16)))
	x := "abc"
	y := x
	y += "d"
	fmt.Println(x, y, x < y, "a"+"b" == "ab")
	fmt.Printf("%q %x %X % x %c %U\n", "hi", "hi", []byte("hi"), "hi", 'G', '世')
}
