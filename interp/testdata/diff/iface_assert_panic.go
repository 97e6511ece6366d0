package main

import "fmt"

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code) }

type shape interface{ Area() float64 }

type rect struct{ w, h float64 }

func (r *rect) Area() float64 { return r.w * r.h }

func try(name string, f func()) {
	defer func() {
		r := recover()
		_, isErr := r.(error)
		fmt.Println(name, isErr, r)
	}()
	f()
}

func main() {
	var none any
	var ce any = codeErr{1}
	var r any = rect{1, 2}
	var pr any = &rect{2, 3}
	var n any = 5
	try("nil error", func() { _ = none.(error) })
	try("nil shape", func() { _ = none.(shape) })
	try("stringer", func() { _ = ce.(fmt.Stringer) })
	try("shape", func() { _ = r.(shape) })
	try("int error", func() { _ = n.(error) })
	try("ok", func() { fmt.Println(ce.(error), pr.(shape).Area()) })
}
