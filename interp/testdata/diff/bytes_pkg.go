package main

import (
	"bytes"
	"fmt"
)

func main() {
	var buf bytes.Buffer
	buf.WriteString("hello ")
	buf.Write([]byte("world"))
	fmt.Println(buf.String(), buf.Len())
	fmt.Println(bytes.Equal([]byte("a"), []byte("a")), bytes.Contains([]byte("abc"), []byte("b")))
	fmt.Println(string(bytes.ToUpper([]byte("x"))), bytes.Split([]byte("a,b"), []byte(",")))
}
