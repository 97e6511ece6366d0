package main

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
)

func main() {
	u, err := url.Parse("https://user:pw@example.com:8080/a/b%20c?q=go+lang&x=1&x=2#frag")
	fmt.Println(err, u.Scheme, u.Host, u.Hostname(), u.Port(), u.Path, u.RawQuery, u.Fragment)
	fmt.Println(u.User.Username(), u.Query()["x"], u.Query().Get("q"))
	v := url.Values{}
	v.Set("name", "a b")
	v.Add("tag", "x&y")
	fmt.Println(v.Encode())
	fmt.Println(url.QueryEscape("a/b c"), url.PathEscape("a/b c"))
	ref, _ := url.Parse("../d?z=1")
	fmt.Println(u.ResolveReference(ref))
	fmt.Println(path.Join("a", "b/../c", "/d"), path.Base("/x/y.txt"), path.Ext("f.tar.gz"), path.Dir("/x/y"))
	fmt.Println(filepath.Clean("a//b/./c/.."), filepath.Join("dir", "file.go"))
	m, _ := filepath.Match("*.go", "main.go")
	fmt.Println(m, filepath.IsAbs("/tmp"))
}
