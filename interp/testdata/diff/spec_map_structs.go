package main

import (
	"fmt"
	"sort"
)

type Account struct {
	Owner   string
	Balance int
	Tags    []string
}

func main() {
	m := map[string]Account{}
	m["a"] = Account{Owner: "ann", Balance: 10}
	acc := m["a"]
	acc.Balance += 5
	fmt.Println(m["a"].Balance, acc.Balance)
	m["a"] = acc
	pm := map[string]*Account{"b": {Owner: "bob"}}
	pm["b"].Balance = 42
	pm["b"].Tags = append(pm["b"].Tags, "vip")
	fmt.Println(*pm["b"])
	missing := m["zz"]
	fmt.Printf("%+v\n", missing)
	if _, ok := pm["zz"]; !ok {
		fmt.Println("no zz")
	}
	counts := map[[2]int]int{}
	counts[[2]int{1, 2}]++
	counts[[2]int{1, 2}]++
	counts[[2]int{2, 1}]++
	fmt.Println(counts[[2]int{1, 2}], len(counts))
	keys := make([]string, 0)
	for k := range map[string]bool{"x": true, "y": true, "w": false} {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys)
	delete(m, "a")
	delete(m, "nope")
	fmt.Println(len(m), m)
}
