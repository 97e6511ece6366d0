package main

import (
	"fmt"
	"io"
	"strings"
)

func main() {
	var b strings.Builder
	b.Grow(16)
	for i := range 5 {
		fmt.Fprintf(&b, "%d,", i)
	}
	s := strings.TrimSuffix(b.String(), ",")
	fmt.Println(s, b.Len())
	r := strings.NewReader("héllo world")
	buf := make([]byte, 3)
	n, _ := r.Read(buf)
	fmt.Println(n, string(buf), r.Len(), r.Size())
	ch, size, _ := r.ReadRune()
	fmt.Println(string(ch), size)
	r.UnreadRune()
	rest, _ := io.ReadAll(r)
	fmt.Println(string(rest))
	r.Reset("new")
	b2, _ := r.ReadByte()
	fmt.Println(string(b2))
	fmt.Println(strings.Join(strings.Split("a-b-c", "-"), "+"))
}
