package main

import (
	"errors"
	"fmt"
)

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code) }

type temp struct{ c float64 }

func (t temp) String() string { return fmt.Sprintf("%.1fC", t.c) }

type ptrErr struct{ msg string }

func (p *ptrErr) Error() string { return "ptr " + p.msg }

type point struct{ x, y int }

func show(v any) string { return fmt.Sprintf("%v|%s|%T", v, v, v) }

func line(v any) { fmt.Println(v) }

func main() {
	var a any = codeErr{1}
	var b any = temp{2}
	var c any = &ptrErr{"c"}
	var d any = point{1, 2}
	fmt.Println(a, b, c, d)
	fmt.Printf("%v %v %v %v\n", a, b, c, d)
	fmt.Printf("%T %T %T %T\n", a, b, c, d)
	fmt.Println(show(a), show(b), show(c), show(d))
	fmt.Println(show(codeErr{3}), show(temp{4}), show(&ptrErr{"e"}), show(point{3, 4}))
	line(codeErr{5})
	line(temp{6})
	line(point{5, 6})
	fmt.Println(fmt.Sprint(a, b), fmt.Sprintln(c, d))
	vals := []any{codeErr{7}, temp{8}, point{7, 8}}
	fmt.Println(vals)
	fmt.Println(vals...)
	err := fmt.Errorf("wrapped: %w", a.(error))
	fmt.Println(err, errors.Is(err, codeErr{1}))
	m := map[string]any{"k": temp{9}}
	fmt.Println(m["k"])
	r := func() (r any) {
		defer func() { r = recover() }()
		panic(codeErr{10})
	}()
	fmt.Println(r)
	fmt.Printf("%v %T\n", r, r)
}
