package main

import (
	"fmt"
	"os"
	"text/tabwriter"
)

func main() {
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "name\tqty\tprice")
	fmt.Fprintln(w, "apple\t3\t1.25")
	fmt.Fprintln(w, "watermelon\t10\t0.5")
	w.Flush()
	w = tabwriter.NewWriter(os.Stdout, 5, 0, 1, '.', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(w, "a\tbbb\tc\t")
	fmt.Fprintln(w, "aaaa\tb\tccccc\t")
	w.Flush()
}
