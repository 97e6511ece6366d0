package main

import "fmt"

func main() {
	base := []int{0, 1, 2, 3, 4, 5, 6, 7}
	s := base[2:4:5]
	fmt.Println(s, len(s), cap(s))
	s = append(s, 40)
	fmt.Println(base)
	s = append(s, 50)
	s[0] = 99
	fmt.Println(base, s)
	t := base[:0:0]
	t = append(t, 7)
	fmt.Println(base[0], t)
	arr := [5]string{"a", "b", "c", "d", "e"}
	u := arr[1:3:4]
	fmt.Println(u, cap(u))
	v := u[:cap(u)]
	fmt.Println(v)
	str := "abcdef"
	fmt.Println(str[1:3], str[:0], str[4:])
}
