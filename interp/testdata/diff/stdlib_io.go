package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

type upper struct{ w io.Writer }

func (u upper) Write(p []byte) (int, error) {
	return u.w.Write(bytes.ToUpper(p))
}

func main() {
	b, _ := io.ReadAll(strings.NewReader("data"))
	fmt.Println(string(b))
	io.Copy(os.Stdout, strings.NewReader("copied\n"))
	fmt.Fprintln(upper{os.Stdout}, "shout")
	fmt.Fprintf(os.Stdout, "%s|%5.1f|\n", "f", 3.14159)
}
