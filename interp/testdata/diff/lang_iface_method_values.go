package main

import (
	"fmt"
	"strings"
)

type Greeter interface{ Greet(string) string }

type english struct{}
type shouter struct{ g Greeter }

func (english) Greet(n string) string   { return "hello " + n }
func (s shouter) Greet(n string) string { return strings.ToUpper(s.g.Greet(n)) }

func main() {
	var g Greeter = english{}
	f := g.Greet
	g = shouter{g}
	fmt.Println(f("a"), g.Greet("b"))
	h := Greeter.Greet
	fmt.Println(h(g, "c"))
	fns := []func(string) string{english{}.Greet, shouter{english{}}.Greet, strings.ToLower}
	for _, fn := range fns {
		fmt.Print(fn("Zed"), "|")
	}
	fmt.Println()
}
