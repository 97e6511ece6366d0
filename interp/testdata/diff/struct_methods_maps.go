package main

import (
	"fmt"
	"sort"
	"strings"
)

type Inventory struct {
	items map[string]int
}

func NewInventory() *Inventory { return &Inventory{items: map[string]int{}} }

func (inv *Inventory) Add(name string, n int) *Inventory {
	inv.items[name] += n
	return inv
}

func (inv *Inventory) Remove(name string, n int) error {
	have, ok := inv.items[name]
	if !ok {
		return fmt.Errorf("no %s", name)
	}
	if have < n {
		return fmt.Errorf("only %d %s", have, name)
	}
	inv.items[name] = have - n
	if inv.items[name] == 0 {
		delete(inv.items, name)
	}
	return nil
}

func (inv Inventory) String() string {
	keys := make([]string, 0, len(inv.items))
	for k := range inv.items {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s:%d ", k, inv.items[k])
	}
	return strings.TrimSpace(b.String())
}

func main() {
	inv := NewInventory().Add("apple", 3).Add("pear", 1)
	fmt.Println(inv)
	fmt.Println(inv.Remove("apple", 5))
	fmt.Println(inv.Remove("kiwi", 1))
	fmt.Println(inv.Remove("pear", 1), inv)
	counts := map[rune]int{}
	for _, r := range "hello world" {
		counts[r]++
	}
	fmt.Println(counts['l'], counts['o'], len(counts))
}
