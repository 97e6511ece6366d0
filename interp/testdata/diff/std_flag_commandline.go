package main

import (
	"flag"
	"fmt"
	"os"
)

// The program's own flags on flag.CommandLine, parsed from its own
// arguments: go run passes none, so each keeps its default.
var (
	n    = flag.Int("n", 3, "how many")
	name = flag.String("name", "gopher", "who")
	v    = flag.Bool("v", false, "verbose")
)

func main() {
	flag.Parse()
	fmt.Println(*n, *name, *v, flag.NArg(), flag.Args(), flag.Parsed())
	fmt.Println(len(os.Args), flag.Lookup("n").DefValue, flag.Lookup("x") == nil)
	count := 0
	flag.VisitAll(func(f *flag.Flag) {
		if f.Name == "n" || f.Name == "name" || f.Name == "v" {
			count++
		}
	})
	fmt.Println(count)
}
