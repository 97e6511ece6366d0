// A struct-heavy simulation: 2,000 particles with methods, bouncing in a
// box for 200 steps.
package main

import (
	"fmt"
	"time"
)

type vec struct{ x, y float64 }

func (a vec) add(b vec) vec       { return vec{a.x + b.x, a.y + b.y} }
func (a vec) scale(k float64) vec { return vec{a.x * k, a.y * k} }

type particle struct {
	pos, vel vec
	bounces  int
}

func (p *particle) step(dt float64) {
	p.vel = p.vel.add(vec{0, -9.81}.scale(dt))
	p.pos = p.pos.add(p.vel.scale(dt))
	if p.pos.y < 0 {
		p.pos.y, p.vel.y = -p.pos.y, -p.vel.y*0.9
		p.bounces++
	}
	if p.pos.x < 0 || p.pos.x > 100 {
		p.vel.x = -p.vel.x
	}
}

func simulate() int {
	ps := make([]particle, 2000)
	for i := range ps {
		ps[i] = particle{pos: vec{float64(i % 100), float64(i%37) + 1}, vel: vec{float64(i%11) - 5, 0}}
	}
	for range 200 {
		for i := range ps {
			ps[i].step(0.01)
		}
	}
	total := 0
	for _, p := range ps {
		total += p.bounces
	}
	return total
}

func main() {
	best, r := time.Duration(1<<62), 0
	for range 3 {
		t := time.Now()
		r = simulate()
		best = min(best, time.Since(t))
	}
	fmt.Println("bounces", r)
	fmt.Println("elapsed_ns", best.Nanoseconds())
}
