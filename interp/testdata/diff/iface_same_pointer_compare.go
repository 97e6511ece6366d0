package main

import (
	"fmt"
	"io"
)

type rw struct{ buf []byte }

func (b *rw) Write(p []byte) (int, error) { b.buf = append(b.buf, p...); return len(p), nil }
func (b *rw) Read(p []byte) (int, error)  { return 0, io.EOF }

type Writer interface{ Write([]byte) (int, error) }
type Reader interface{ Read([]byte) (int, error) }

func main() {
	p := &rw{}
	var w Writer = p
	var r Reader = p
	fmt.Println(any(w) == any(r))
	var iw io.Writer = p
	fmt.Println(any(iw) == any(w), any(r) == any(p))
	q := &rw{}
	var r2 Reader = q
	fmt.Println(any(w) == any(r2))
}
