package main

import "fmt"

type Counter struct{ n int }

func (c *Counter) Inc()      { c.n++ }
func (c Counter) Value() int { return c.n }

func main() {
	c := Counter{}
	c.Inc()
	c.Inc()
	p := &c
	p.Inc()
	fmt.Println(c.Value(), p.Value())
	cs := []Counter{{}, {}}
	cs[1].Inc()
	fmt.Println(cs[0].n, cs[1].n)
}
