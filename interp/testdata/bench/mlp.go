// A hand-written 2-layer perceptron (2-16-1, tanh, sigmoid) trained by
// backprop with SGD on 256 points of two classes, 60 epochs.
package main

import (
	"fmt"
	"math"
	"time"
)

type mlp struct {
	w1 [16][2]float64
	b1 [16]float64
	w2 [16]float64
	b2 float64
}

func (m *mlp) init() {
	s := uint32(7)
	rnd := func() float64 {
		s = s*1664525 + 1013904223
		return float64(s>>8)/float64(1<<24) - 0.5
	}
	for i := range m.w1 {
		m.w1[i][0], m.w1[i][1], m.w2[i] = rnd(), rnd(), rnd()
	}
}

func (m *mlp) epoch(xs [][2]float64, ys []float64, lr float64) float64 {
	loss := 0.0
	var h [16]float64
	for p, x := range xs {
		z := m.b2
		for i := range h {
			h[i] = math.Tanh(m.w1[i][0]*x[0] + m.w1[i][1]*x[1] + m.b1[i])
			z += m.w2[i] * h[i]
		}
		out := 1 / (1 + math.Exp(-z))
		y := ys[p]
		loss -= y*math.Log(out+1e-12) + (1-y)*math.Log(1-out+1e-12)
		g := out - y
		for i := range h {
			gh := g * m.w2[i] * (1 - h[i]*h[i])
			m.w2[i] -= lr * g * h[i]
			m.w1[i][0] -= lr * gh * x[0]
			m.w1[i][1] -= lr * gh * x[1]
			m.b1[i] -= lr * gh
		}
		m.b2 -= lr * g
	}
	return loss / float64(len(xs))
}

func main() {
	xs := make([][2]float64, 256)
	ys := make([]float64, 256)
	for i := range xs {
		a := float64(i) * 0.37
		r := 1.0 + float64(i%2)
		xs[i] = [2]float64{r * math.Cos(a), r * math.Sin(a)}
		ys[i] = float64(i % 2)
	}
	best, loss := time.Duration(1<<62), 0.0
	for range 3 {
		var m mlp
		m.init()
		t := time.Now()
		for range 60 {
			loss = m.epoch(xs, ys, 0.05)
		}
		best = min(best, time.Since(t))
	}
	fmt.Printf("loss = %.6f\n", loss)
	fmt.Println("elapsed_ns", best.Nanoseconds())
}
