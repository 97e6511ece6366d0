package main

import (
	"flag"
	"fmt"
	"strings"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	n := fs.Int("n", 1, "count")
	name := fs.String("name", "anon", "who")
	verbose := fs.Bool("v", false, "verbose")
	var tags listFlag
	fs.Var(&tags, "tag", "tags")
	err := fs.Parse([]string{"-n", "3", "-v", "-tag", "a", "-tag=b", "rest1", "rest2"})
	fmt.Println(err, *n, *name, *verbose, tags, fs.Args(), fs.NArg())
	fs.VisitAll(func(f *flag.Flag) { fmt.Print(f.Name, "=", f.Value, " ") })
	fmt.Println()
}
