package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

type IDs []int

func (s IDs) Sum() int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

type Scores map[string]int

func (m Scores) Best() string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best := ""
	for _, k := range keys {
		if best == "" || m[k] > m[best] {
			best = k
		}
	}
	return best
}

func main() {
	ids := IDs{3, 1, 2}
	c := slices.Clone(ids)
	c[0] = 10
	fmt.Printf("%T %v %v %d\n", c, c, ids, c.Sum())
	var none IDs
	fmt.Println(slices.Clone(none) == nil, len(slices.Clone([]string{"a"})))
	sc := Scores{"a": 1, "b": 5}
	m := maps.Clone(sc)
	m["c"] = 9
	fmt.Printf("%T %d %d %s %s\n", m, len(m), len(sc), m.Best(), sc.Best())
	plain := maps.Clone(map[int]bool{1: true})
	fmt.Printf("%T %v\n", plain, plain)
}

func init() {
	ids := IDs{1, 1, 2, 3, 3}
	c := slices.Compact(slices.Clone(ids))
	ins := slices.Insert(IDs{1, 4}, 1, 2, 3)
	del := slices.Delete(IDs{1, 2, 3, 4}, 1, 3)
	df := slices.DeleteFunc(IDs{1, 2, 3, 4}, func(v int) bool { return v%2 == 0 })
	cat := slices.Concat(IDs{1}, IDs{2, 3})
	rep := slices.Repeat(IDs{7}, 3)
	cf := slices.CompactFunc(IDs{1, 2, 4, 5}, func(a, b int) bool { return a%2 == b%2 })
	fmt.Printf("%T %v %d | %T %v | %T %v | %T %v | %T %v | %T %v | %T %v\n", c, c, c.Sum(), ins, ins, del, del, df, df, cat, cat, rep, rep, cf, cf)
	fmt.Println(slices.Concat([]int{1}, []int{2}), slices.Insert([]string{"a"}, 1, "b"), slices.Compact([]int{1, 1}))
}
