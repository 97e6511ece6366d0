package main

import "fmt"

type Reader interface{ Read() string }
type Writer interface{ Write(s string) }
type ReadWriter interface {
	Reader
	Writer
}

type buf struct{ data []string }

func (b *buf) Read() string {
	if len(b.data) == 0 {
		return ""
	}
	s := b.data[0]
	b.data = b.data[1:]
	return s
}
func (b *buf) Write(s string) { b.data = append(b.data, s) }

func main() {
	var rw ReadWriter = &buf{}
	rw.Write("hello")
	rw.Write("world")
	fmt.Println(rw.Read(), rw.Read(), rw.Read() == "")
}
