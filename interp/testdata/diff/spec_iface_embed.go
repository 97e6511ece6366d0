package main

import (
	"fmt"
	"strings"
)

type Reader interface{ Read() string }
type Writer interface{ Write(s string) }
type ReadWriter interface {
	Reader
	Writer
}

type buf struct{ parts []string }

func (b *buf) Read() string {
	if len(b.parts) == 0 {
		return ""
	}
	s := b.parts[0]
	b.parts = b.parts[1:]
	return s
}
func (b *buf) Write(s string) { b.parts = append(b.parts, strings.ToUpper(s)) }

func pump(rw ReadWriter, words ...string) {
	for _, w := range words {
		rw.Write(w)
	}
}

func main() {
	b := &buf{}
	pump(b, "one", "two", "three")
	var r Reader = b
	fmt.Println(r.Read())
	if w, ok := r.(Writer); ok {
		w.Write("four")
	}
	for s := r.Read(); s != ""; s = r.Read() {
		fmt.Print(s, " ")
	}
	fmt.Println()
	var rw ReadWriter = b
	var r2 Reader = rw
	fmt.Println(r2 == r, len(b.parts))
}
