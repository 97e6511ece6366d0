package main

import (
	"fmt"
	"strings"
)

type Temp float64

func (t Temp) String() string { return fmt.Sprintf("%.1f°C", float64(t)) }

type Stack struct{ items []int }

func (s *Stack) String() string {
	parts := make([]string, len(s.items))
	for i, v := range s.items {
		parts[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(parts, "|") + "]"
}

type Grid [2][2]int

func (g Grid) String() string { return fmt.Sprintf("grid%v", [2][2]int(g)) }

func main() {
	t := Temp(21.55)
	fmt.Println(t, []Temp{1, 2})
	fmt.Printf("%v %s %.2f\n", t, t, float64(t))
	s := &Stack{[]int{1, 2, 3}}
	fmt.Println(s)
	fmt.Printf("%v %s\n", s, s)
	fmt.Println(Grid{{1, 2}, {3, 4}})
	str := fmt.Sprint(t, " and ", s)
	fmt.Println(str)
}
