package main

import (
	"fmt"
	"io"
	"strings"
)

type upperWriter struct{ w io.Writer }

func (u upperWriter) Write(p []byte) (int, error) {
	return u.w.Write([]byte(strings.ToUpper(string(p))))
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func main() {
	var sb strings.Builder
	w := upperWriter{&sb}
	io.WriteString(w, "quiet ")
	fmt.Fprint(w, "words")
	fmt.Println(sb.String())
	cr := &countingReader{r: strings.NewReader("some text to count")}
	data, err := io.ReadAll(io.LimitReader(cr, 9))
	fmt.Printf("%q %v %v\n", data, err, cr.n >= 9)
	mr := io.MultiReader(strings.NewReader("ab"), strings.NewReader("cd"))
	var out strings.Builder
	n, _ := io.Copy(&out, mr)
	fmt.Println(n, out.String())
	var b1, b2 strings.Builder
	mw := io.MultiWriter(&b1, &b2)
	fmt.Fprintf(mw, "x=%d", 1)
	fmt.Println(b1.String(), b2.String())
	sr := io.NewSectionReader(strings.NewReader("0123456789"), 2, 4)
	sec, _ := io.ReadAll(sr)
	fmt.Println(string(sec))
	_, err = io.ReadFull(strings.NewReader("ab"), make([]byte, 3))
	fmt.Println(err)
}
