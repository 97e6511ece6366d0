package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Standard library added after Go 1.22 (yaegi's own tables): iterators of
// strings and bytes, sync/atomic's And/Or, errors.AsType, log.Logger's
// SetPrefix.
func main() {
	for line := range strings.Lines("a\nb\n") {
		fmt.Printf("%q\n", line)
	}
	for f := range strings.FieldsSeq(" x  y ") {
		fmt.Println(f)
	}
	for part := range bytes.SplitSeq([]byte("1,2,3"), []byte(",")) {
		fmt.Print(string(part), ";")
	}
	fmt.Println()
	var n uint32 = 0b1100
	old := atomic.OrUint32(&n, 0b0011)
	fmt.Println(old, n)
	_, err := os.Open("/no/such/file")
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		fmt.Println("path error:", pe.Op, pe.Path)
	}
	_, err = strconv.Atoi("z")
	ne, ok := errors.AsType[*strconv.NumError](err)
	fmt.Println(ok, ne.Func, ne.Num)
	l := log.New(os.Stdout, "first: ", 0)
	l.SetPrefix("second: ")
	l.Println("hello")
}
