package main

import (
	"fmt"
	"sort"
)

type reverse struct {
	sort.Interface
}

func (r reverse) Less(i, j int) bool { return r.Interface.Less(j, i) }

type Logger interface{ Log(string) }

type prefixLogger struct{ prefix string }

func (p prefixLogger) Log(s string) { fmt.Println(p.prefix + s) }

type Service struct {
	Logger
	name string
}

func main() {
	xs := []int{3, 1, 2}
	sort.Sort(reverse{sort.IntSlice(xs)})
	fmt.Println(xs)
	s := Service{prefixLogger{"[svc] "}, "api"}
	s.Log("started " + s.name)
	s.Logger = prefixLogger{"[new] "}
	s.Log("swapped")
}
