package main

import "fmt"

type Counter struct{ n int }

func (c *Counter) Inc()         { c.n++ }
func (c Counter) Get() int      { return c.n }
func (c Counter) Add(k int) int { return c.n + k }

func apply(f func(int) int, v int) int { return f(v) }

func main() {
	c := &Counter{}
	inc := c.Inc
	inc()
	inc()
	fmt.Println(c.Get())
	get := c.Get
	c.Inc()
	fmt.Println(get(), c.Get())
	add := Counter.Add
	fmt.Println(add(Counter{10}, 5), apply(c.Add, 100))
	incE := (*Counter).Inc
	incE(c)
	fmt.Println(c.n)
	fs := []func(){c.Inc, c.Inc}
	for _, f := range fs {
		f()
	}
	fmt.Println(c.n)
}
