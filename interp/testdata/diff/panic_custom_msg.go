package main

import "fmt"

type state struct{ step int }

func (s *state) advance() {
	s.step++
	if s.step > 2 {
		panic(fmt.Sprintf("invalid step %d", s.step))
	}
}

func main() {
	s := &state{}
	for range 5 {
		s.advance()
		fmt.Println("step", s.step)
	}
}
