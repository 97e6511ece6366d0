package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

func main() {
	names := []string{"delta", "alpha", "charlie", "bravo"}
	sort.Strings(names)
	fmt.Println(names, sort.SearchStrings(names, "charlie"), sort.SearchStrings(names, "zulu"))
	fmt.Println(sort.StringsAreSorted(names), slices.Index(names, "bravo"))
	byLast := func(a, b string) int { return strings.Compare(a[len(a)-1:], b[len(b)-1:]) }
	s2 := slices.Clone(names)
	slices.SortStableFunc(s2, byLast)
	fmt.Println(s2)
	people := map[string]int{"ann": 30, "bob": 25, "cy": 30}
	keys := make([]string, 0, len(people))
	for k := range people {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if people[keys[i]] != people[keys[j]] {
			return people[keys[i]] > people[keys[j]]
		}
		return keys[i] < keys[j]
	})
	fmt.Println(keys)
}
