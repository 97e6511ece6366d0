package main

// select statements in functions over the kinds of channel and value:
// sends of struct values and of nil, channels of interfaces (any, error,
// and a program's own, which keeps yaegi's select), named and directional
// channel types, functions, timers, a closed channel's zero value and a
// labelled break.

import (
	"errors"
	"fmt"
	"time"
)

type point struct{ X, Y int }

func (p point) String() string { return fmt.Sprintf("<%d,%d>", p.X, p.Y) }

type shape interface{ Area() float64 }

type square float64

func (s square) Area() float64 { return float64(s * s) }

type ints chan int

var calls int

func next() int { calls++; return calls }

func sendPoint(ch chan point) {
	select {
	case ch <- point{3, 4}:
	}
}

func recvAny(ch <-chan any) string {
	select {
	case v, ok := <-ch:
		return fmt.Sprintf("%v %T %v", v, v, ok)
	}
}

func sendErr(ch chan<- error, e error) {
	select {
	case ch <- e:
	default:
		fmt.Println("full")
	}
}

func area(ch chan shape) float64 {
	select {
	case s := <-ch:
		if s == nil {
			return -1
		}
		return s.Area()
	}
}

func named(c ints) (n int) {
	select {
	case c <- next():
		n = 1
	case v := <-c:
		n = v
	}
	return
}

func timeout(ch chan int) string {
	select {
	case v := <-ch:
		return fmt.Sprint(v)
	case <-time.After(10 * time.Millisecond):
		return "timeout"
	}
}

func call(ch chan func() int, k int) int {
	select {
	case f := <-ch:
		return f() + k
	case ch <- func() int { return k * 10 }:
		return -1
	}
}

func count(ch chan int) (n int) {
	var s []int
outer:
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				break outer
			}
			s = append(s, v)
			n += v
		}
	}
	fmt.Println(s)
	return n
}

func main() {
	pc := make(chan point, 1)
	sendPoint(pc)
	fmt.Println(<-pc)

	ac := make(chan any, 3)
	ac <- 1.5
	ac <- point{1, 2}
	ac <- nil
	fmt.Println(recvAny(ac))
	fmt.Println(recvAny(ac))
	fmt.Println(recvAny(ac))
	close(ac)
	fmt.Println(recvAny(ac))

	ec := make(chan error, 1)
	sendErr(ec, nil)
	sendErr(ec, errors.New("x"))
	fmt.Println(<-ec)

	sc := make(chan shape, 2)
	sc <- square(3)
	sc <- nil
	fmt.Println(area(sc), area(sc))

	c := make(ints, 1)
	fmt.Println(named(c), named(c), calls)

	fmt.Println(timeout(make(chan int)))

	fc := make(chan func() int, 1)
	fmt.Println(call(fc, 2), call(fc, 3))

	ic := make(chan int, 4)
	for _, v := range []int{4, 5, 6} {
		ic <- v
	}
	close(ic)
	fmt.Println(count(ic))
}
