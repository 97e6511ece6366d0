package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "flushed line")
	w.Flush()
	fmt.Fprintln(w, "buffered, lost at exit")
	os.Exit(9)
}
