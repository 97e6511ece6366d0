package main

import (
	"bytes"
	"fmt"
	"io"
)

func main() {
	var buf bytes.Buffer
	buf.WriteString("hello ")
	buf.Write([]byte("world"))
	buf.WriteByte('!')
	fmt.Fprintf(&buf, " %d", 42)
	fmt.Println(buf.String(), buf.Len())
	p := make([]byte, 5)
	n, _ := buf.Read(p)
	fmt.Println(n, string(p), buf.String())
	line, err := buf.ReadString('!')
	fmt.Printf("%q %v\n", line, err)
	rest, _ := io.ReadAll(&buf)
	fmt.Printf("%q %d\n", rest, buf.Len())
	fmt.Println(bytes.Equal([]byte("a"), []byte("a")), bytes.Compare([]byte("a"), []byte("b")))
	fmt.Println(bytes.ToUpper([]byte("abc")), string(bytes.TrimSpace([]byte("  x  "))))
	fmt.Println(bytes.Contains([]byte("seafood"), []byte("foo")), bytes.Index([]byte("chicken"), []byte("ken")))
	fields := bytes.Fields([]byte(" a bb  ccc "))
	fmt.Println(len(fields), string(bytes.Join(fields, []byte("-"))))
	r := bytes.NewReader([]byte("0123456789"))
	r.Seek(5, io.SeekStart)
	b, _ := r.ReadByte()
	fmt.Println(string(b), r.Len())
}
