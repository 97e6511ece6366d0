package main

import (
	"bytes"
	"fmt"
	"strings"
)

func main() {
	text := "alpha\nbeta\n\ngamma"
	for line := range strings.Lines(text) {
		fmt.Printf("%q ", line)
	}
	fmt.Println()
	for part := range strings.SplitSeq("a,b,,c", ",") {
		fmt.Printf("[%s]", part)
	}
	fmt.Println()
	n := 0
	for f := range strings.FieldsSeq("  one two   three ") {
		n += len(f)
		fmt.Print(f, ";")
	}
	fmt.Println(n)
	for f := range strings.FieldsFuncSeq("a1b22c", func(r rune) bool { return r >= '0' && r <= '9' }) {
		fmt.Print(f, " ")
	}
	fmt.Println()
	for p := range bytes.SplitSeq([]byte("x-y-z"), []byte("-")) {
		fmt.Print(string(p))
	}
	fmt.Println()
	for s := range strings.SplitAfterSeq("1.2.3", ".") {
		fmt.Printf("%q", s)
	}
	fmt.Println()
}
