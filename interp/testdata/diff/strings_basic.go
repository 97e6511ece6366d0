package main

import (
	"fmt"
	"strings"
)

func main() {
	s := "Hello, World"
	fmt.Println(strings.ToUpper(s), strings.ToLower(s), len(s))
	fmt.Println(strings.Split("a,b,c", ","), strings.Fields("  a b  c "))
	fmt.Println(strings.Contains(s, "World"), strings.Index(s, "o"), strings.LastIndex(s, "o"))
	fmt.Println(strings.Replace(s, "l", "L", 2), strings.ReplaceAll(s, "l", "L"))
	fmt.Println(strings.TrimSpace("  x  "), strings.Trim("xxhixx", "x"), strings.TrimPrefix(s, "Hello"))
	fmt.Println(strings.Repeat("ab", 3), strings.HasPrefix(s, "He"), strings.HasSuffix(s, "ld"))
	before, after, found := strings.Cut("k=v", "=")
	fmt.Println(before, after, found, strings.EqualFold("Go", "GO"))
	fmt.Println(strings.Title("x"), strings.Count("cheese", "e"), strings.Join([]string{"a", "b"}, "+"))
}
