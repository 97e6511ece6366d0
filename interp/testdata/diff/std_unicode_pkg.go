package main

import (
	"fmt"
	"strings"
	"unicode"
)

func classify(r rune) string {
	var c []string
	if unicode.IsLetter(r) {
		c = append(c, "L")
	}
	if unicode.IsDigit(r) {
		c = append(c, "D")
	}
	if unicode.IsSpace(r) {
		c = append(c, "S")
	}
	if unicode.IsPunct(r) {
		c = append(c, "P")
	}
	if unicode.IsUpper(r) {
		c = append(c, "U")
	}
	if unicode.Is(unicode.Han, r) {
		c = append(c, "Han")
	}
	return strings.Join(c, "")
}

func main() {
	for _, r := range "aZ9 ,世\tÉ" {
		fmt.Printf("%q:%s ", r, classify(r))
	}
	fmt.Println()
	fmt.Println(string(unicode.ToUpper('ß')), string(unicode.ToLower('Σ')), string(unicode.ToTitle('a')))
	fmt.Println(strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return unicode.SimpleFold(r)
	}, "aB3c4D"))
	fmt.Println(strings.ToUpper("straße"), strings.EqualFold("Go", "GO"))
	fmt.Println(unicode.MaxRune, unicode.ReplacementChar == '\uFFFD')
}
