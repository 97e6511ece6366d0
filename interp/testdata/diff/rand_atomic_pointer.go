package main

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

type cfg struct{ n int }

func main() {
	r := rand.N(10)
	fmt.Println(r >= 0 && r < 10)
	d := rand.N(time.Second)
	fmt.Println(d < time.Second)
	var p atomic.Pointer[cfg]
	fmt.Println(p.Load() == nil)
	p.Store(&cfg{3})
	fmt.Println(p.Load().n)
	old := p.Swap(&cfg{4})
	fmt.Println(old.n, p.Load().n)
}
