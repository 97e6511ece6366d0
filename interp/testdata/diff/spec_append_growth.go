package main

import "fmt"

func main() {
	var s []int
	a := append(s, 1)
	b := append(a, 2)
	c := append(a, 3)
	fmt.Println(a, b, c)
	x := make([]int, 3, 10)
	y := append(x, 4)
	z := append(x, 5)
	fmt.Println(y, z, y[3] == z[3])
	dst := make([]int, 2)
	n := copy(dst, []int{7, 8, 9})
	fmt.Println(n, dst)
	n = copy(dst, []int{1})
	fmt.Println(n, dst)
	bs := make([]byte, 3)
	n = copy(bs, "héllo")
	fmt.Println(n, bs)
	ov := []int{1, 2, 3, 4, 5}
	copy(ov[1:], ov)
	fmt.Println(ov)
	grown := append([]int(nil), ov...)
	grown = append(grown[:2], grown[3:]...)
	fmt.Println(grown, len(grown))
	bb := append([]byte("ab"), "cd"...)
	fmt.Println(string(bb))
	var nilS []string
	nilS = append(nilS, nilS...)
	fmt.Println(nilS == nil, len(nilS))
}
