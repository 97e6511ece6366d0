package main

import "fmt"

type Point struct {
	X, Y int
}

type Celsius float64

type Tags []string

type Grid [2][2]int

type Inner struct{ A int }
type Outer struct {
	Name string
	In   Inner
	P    *Inner
	M    map[string]int
}

func main() {
	p := Point{1, -2}
	fmt.Printf("%v|%+v|%#v|%T\n", p, p, p, p)
	fmt.Printf("%v|%+v|%T\n", &p, &p, &p)
	c := Celsius(21.5)
	fmt.Printf("%v|%.1f|%#v|%T\n", c, c, c, c)
	t := Tags{"a", "b"}
	fmt.Printf("%v|%q|%#v|%T\n", t, t, t, t)
	g := Grid{{1, 2}, {3, 4}}
	fmt.Printf("%v|%T\n", g, g)
	o := Outer{Name: "o", In: Inner{1}, M: map[string]int{"k": 1}}
	fmt.Printf("%v\n%+v\n", o, o)
	fmt.Printf("%#v\n", Inner{7})
	fmt.Printf("%x|%X|%o|%b\n", 255, []byte("hi"), 8, 5)
	fmt.Printf("%5d|%-5d|%05d|%+d\n", 42, 42, 42, 42)
	fmt.Printf("%8.3f|%-8.2f|%08.3f|%e|%g\n", 3.14159, 2.5, -1.5, 123456.789, 1e-7)
	fmt.Printf("%-5s|%5s|%.2s|%q|%x\n", "ab", "cd", "xyz", "q\"", "hi")
	fmt.Printf("%U|%c|%#U|%q\n", 'é', 'é', 'é', 'é')
	fmt.Printf("%t|%v|%d\n", true, nil, []Point{{1, 2}})
	fmt.Printf("%[2]d %[1]d %*d\n", 1, 2, 4, 7)
}
