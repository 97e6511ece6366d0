package main

import (
	"fmt"
	"strings"
)

type Secret string

func (s Secret) GoString() string { return `Secret("***")` }
func (s Secret) String() string   { return "***" }

type Matrix [][]float64

func (m Matrix) Format(f fmt.State, verb rune) {
	switch verb {
	case 'v':
		if f.Flag('+') {
			fmt.Fprintf(f, "Matrix%dx%d", len(m), len(m[0]))
			return
		}
		rows := make([]string, len(m))
		for i, r := range m {
			rows[i] = fmt.Sprint(r)
		}
		fmt.Fprint(f, strings.Join(rows, ";"))
	case 's':
		fmt.Fprint(f, "matrix")
	default:
		fmt.Fprintf(f, "%%!%c(Matrix)", verb)
	}
}

type Temp float64

func (t Temp) Format(f fmt.State, verb rune) {
	p, ok := f.Precision()
	if !ok {
		p = 1
	}
	w, _ := f.Width()
	fmt.Fprintf(f, "%*.*f°C", w, p, float64(t))
}

func main() {
	s := Secret("hunter2")
	fmt.Printf("%v %s %#v\n", s, s, s)
	m := Matrix{{1, 2}, {3, 4}}
	fmt.Printf("%v|%+v|%s|%d\n", m, m, m, m)
	fmt.Println(m)
	t := Temp(21.456)
	fmt.Printf("%v|%.2v|%8.0v|\n", t, t, t)
	fmt.Println(t)
}
