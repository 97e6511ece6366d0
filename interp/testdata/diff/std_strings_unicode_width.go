package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

func pad(s string, n int) string {
	w := utf8.RuneCountInString(s)
	if w >= n {
		return s
	}
	return s + strings.Repeat(".", n-w)
}

func main() {
	for _, s := range []string{"go", "héllo", "日本語", ""} {
		fmt.Printf("[%s] [%-6s] [%6s] %d\n", pad(s, 6), s, s, len(s))
	}
	fmt.Printf("%5.2s|%-5.1s|\n", "日本語", "héllo")
	fmt.Printf("%q %+q %#q\n", "日本", "日本", "日本")
	fmt.Printf("%x % X\n", "日", "日")
	r := []rune("añb")
	r[1] = 'n'
	fmt.Println(string(r), strings.IndexRune("añb", 'b'), strings.IndexRune("añb", 'ñ'))
}
