package main

import "fmt"

func main() {
	a := make([]int, 3, 10)
	b := append(a, 4)
	c := append(a, 5)
	fmt.Println(b[3], c[3], len(a), cap(a))
	s := []int{1, 2, 3, 4, 5}
	t := s[1:3]
	t[0] = 20
	fmt.Println(s, t, len(t), cap(t))
	u := s[1:2:3]
	fmt.Println(len(u), cap(u))
	d := make([]int, 2)
	n := copy(d, s)
	fmt.Println(n, d)
	s = append(s[:1], s[2:]...)
	fmt.Println(s)
}
