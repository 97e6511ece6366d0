package main

import (
	"fmt"
	"sort"
	"strings"
)

func key(w string) string {
	b := strings.Split(w, "")
	sort.Strings(b)
	return strings.Join(b, "")
}

func main() {
	groups := map[string][]string{}
	for _, w := range []string{"eat", "tea", "tan", "ate", "nat", "bat"} {
		k := key(w)
		groups[k] = append(groups[k], w)
	}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, groups[k])
	}
}
