// 200k map updates with strconv, then sort.Slice of the entries.
package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

type entry struct {
	key   string
	count int
}

func work() []entry {
	m := map[string]int{}
	for i := 0; i < 200000; i++ {
		m[strconv.Itoa(i*7919%50021)]++
	}
	es := make([]entry, 0, len(m))
	for k, v := range m {
		es = append(es, entry{k, v})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].count != es[j].count {
			return es[i].count > es[j].count
		}
		return es[i].key < es[j].key
	})
	return es
}

func main() {
	best := time.Duration(1 << 62)
	var es []entry
	for range 3 {
		t := time.Now()
		es = work()
		best = min(best, time.Since(t))
	}
	fmt.Println(len(es), es[0], es[len(es)-1])
	fmt.Println("elapsed_ns", best.Nanoseconds())
}
