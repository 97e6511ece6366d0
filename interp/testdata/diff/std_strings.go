package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
)

func main() {
	s := "Hello, World, Go"
	fmt.Println(strings.Split(s, ", "), strings.Fields(" a  b "), strings.ToUpper(s))
	fmt.Println(strings.Contains(s, "World"), strings.Index(s, "o"), strings.LastIndex(s, "o"))
	fmt.Println(strings.Replace(s, "o", "0", 2), strings.ReplaceAll(s, "o", "0"))
	fmt.Println(strings.TrimSpace("  x  "), strings.Trim("--x--", "-"), strings.TrimPrefix(s, "Hello"))
	fmt.Println(strings.Repeat("ab", 3), strings.Join([]string{"a", "b"}, "-"), strings.Title("go"))
	before, after, found := strings.Cut("k=v", "=")
	fmt.Println(before, after, found, strings.EqualFold("Go", "GO"))
	var b strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "%d;", i)
	}
	fmt.Println(b.String(), b.Len())
	fmt.Println(strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, "AbC"))
	var buf bytes.Buffer
	buf.WriteString("xy")
	buf.WriteByte('z')
	fmt.Println(buf.String(), bytes.Equal([]byte("a"), []byte("a")), bytes.ToUpper([]byte("q")))
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;")
	fmt.Println(r.Replace("<b>"), strings.Count("cheese", "e"), strings.HasSuffix(s, "Go"))
}
