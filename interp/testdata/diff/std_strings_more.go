package main

import (
	"fmt"
	"strings"
)

func main() {
	s := "  Hello, Gophers! Hello again.  "
	fmt.Printf("%q\n", strings.TrimSpace(s))
	fmt.Println(strings.Count(s, "Hello"), strings.Index(s, "Go"), strings.LastIndex(s, "Hello"))
	fmt.Println(strings.Replace(s, "Hello", "Bye", 1), "|", strings.ReplaceAll("aaa", "a", "bb"))
	before, after, found := strings.Cut("key=value=x", "=")
	fmt.Println(before, after, found)
	fmt.Println(strings.CutPrefix("prefix-body", "prefix-"))
	fmt.Println(strings.CutSuffix("file.go", ".py"))
	fmt.Printf("%q\n", strings.SplitN("a,b,c,d", ",", 2))
	fmt.Printf("%q\n", strings.SplitAfter("a,b,c", ","))
	fmt.Println(strings.Repeat("ab", 3), strings.TrimLeft("xxhixx", "x"), strings.TrimSuffix("a.b.c", ".c"))
	fmt.Println(strings.ContainsAny("hello", "xyz"), strings.ContainsRune("héllo", 'é'), strings.IndexByte("abc", 'c'))
	fmt.Println(strings.Fields(" a  b c "), len(strings.Fields("   ")))
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;")
	fmt.Println(r.Replace("<b>bold</b>"))
	fmt.Println(strings.Compare("a", "b"), strings.ToTitle("go"), strings.TrimFunc("123abc456", func(r rune) bool { return r < 'a' }))
}
