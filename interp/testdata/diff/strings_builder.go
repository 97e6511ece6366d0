package main

import (
	"fmt"
	"strings"
)

func main() {
	var b strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "%d;", i)
	}
	b.WriteString("end")
	b.WriteByte('!')
	fmt.Println(b.String(), b.Len())
	r := strings.NewReplacer("a", "1", "b", "2")
	fmt.Println(r.Replace("abc"))
	fmt.Println(strings.Map(func(r rune) rune { return r + 1 }, "abc"))
}
