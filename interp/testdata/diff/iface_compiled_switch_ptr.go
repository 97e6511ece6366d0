package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

type zeros struct{ left int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), z.left)
	for i := range n {
		p[i] = 0
	}
	z.left -= n
	return n, nil
}

func describe(r io.Reader) string {
	switch v := r.(type) {
	case *countingReader:
		return fmt.Sprintf("counting, %d bytes so far", v.n)
	case *zeros:
		return fmt.Sprintf("zeros, %d left", v.left)
	case *bytes.Buffer:
		return fmt.Sprintf("buffer of %d", v.Len())
	case nil:
		return "nil"
	default:
		return fmt.Sprintf("other %T", v)
	}
}

func main() {
	cr := &countingReader{r: strings.NewReader("hello world")}
	buf := make([]byte, 5)
	cr.Read(buf)
	readers := []io.Reader{cr, &zeros{left: 3}, bytes.NewBufferString("abc"), strings.NewReader("x"), nil}
	for _, r := range readers {
		fmt.Println(describe(r))
	}
	var r io.Reader = &zeros{left: 7}
	switch r.(type) {
	case *countingReader, *zeros:
		fmt.Println("one of ours")
	}
	data, _ := io.ReadAll(r)
	fmt.Println(len(data))
}
