package main

import "fmt"

func main() {
	pairs := [][2]int{{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {0, 3}}
	for _, p := range pairs {
		a, b := p[0], p[1]
		fmt.Printf("%d/%d=%d %d%%%d=%d\n", a, b, a/b, a, b, a%b)
	}
	var i8 int8 = -128
	fmt.Println(i8/-1, i8%-1)
	var u uint8 = 200
	fmt.Println(u+100, u*2, -u)
	m := -7
	fmt.Println(m>>1, m/2, ((m%3)+3)%3)
	fmt.Println(7.0/2, -7.5/2)
	var i32 int32 = 1 << 30
	fmt.Println(i32*4, i32*2)
}
