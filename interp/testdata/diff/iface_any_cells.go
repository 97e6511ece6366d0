package main

import (
	"errors"
	"fmt"
)

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code) }

type ptrErr struct{ msg string }

func (p *ptrErr) Error() string { return "ptr " + p.msg }

type temp struct{ c float64 }

func (t temp) String() string { return fmt.Sprintf("%.1fC", t.c) }

type shape interface{ Area() float64 }

type square struct{ s float64 }

func (q square) Area() float64 { return q.s * q.s }

type plain struct{ n int }

func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case codeErr:
		return fmt.Sprint("codeErr ", x.code)
	case *ptrErr:
		return "ptrErr " + x.msg
	case shape:
		return fmt.Sprint("shape ", x.Area())
	case error:
		return "error " + x.Error()
	case fmt.Stringer:
		return "stringer " + x.String()
	case int, string:
		return fmt.Sprint("basic ", x)
	case plain:
		return fmt.Sprint("plain ", x.n)
	default:
		return fmt.Sprintf("other %v", x)
	}
}

func methods(v any) string {
	switch v.(type) {
	case error, fmt.Stringer:
		return "methods"
	case nil:
		return "nil"
	}
	return "none"
}

func firstErr(vs []any) int {
	n := -1
loop:
	for i, v := range vs {
		switch v.(type) {
		case error:
			n = i
			break loop
		}
	}
	return n
}

func assert(v any) (bool, bool, bool) {
	_, isErr := v.(error)
	_, isStr := v.(fmt.Stringer)
	_, isShape := v.(shape)
	return isErr, isStr, isShape
}

func recovered(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func main() {
	var a any = codeErr{1}
	var b any = &ptrErr{"b"}
	var c any = temp{21.5}
	var d any = square{2}
	var e any = plain{3}
	vals := []any{nil, a, b, c, d, e, 7, "s", 2.5, errors.New("std"), codeErr{2}, &ptrErr{"lit"}, temp{-1}}
	for _, v := range vals {
		fmt.Println(kind(v), methods(v))
	}
	m := map[string]any{"a": codeErr{4}, "b": &ptrErr{"m"}}
	fmt.Println(kind(m["a"]), kind(m["b"]), kind(m["none"]))
	fmt.Println(firstErr([]any{1, "x", codeErr{5}, errors.New("y")}), firstErr([]any{1}))
	for _, v := range []any{nil, a, b, c, d, e, 1} {
		fmt.Println(assert(v))
	}
	if err, ok := a.(error); ok {
		fmt.Println("a is an error:", err.Error())
	}
	if s, ok := c.(fmt.Stringer); ok {
		fmt.Println("c is a stringer:", s.String())
	}
	r := recovered(func() { panic(codeErr{9}) })
	fmt.Println(kind(r), methods(r))
	r = recovered(func() { panic(&ptrErr{"p"}) })
	fmt.Println(kind(r), methods(r))
	if err, ok := r.(error); ok {
		var pe *ptrErr
		fmt.Println(errors.As(err, &pe), pe.msg)
	}
}
