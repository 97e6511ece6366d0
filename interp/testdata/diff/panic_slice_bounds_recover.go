package main

import (
	"fmt"
	"strings"
)

func safe(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				msg = "runtime: " + strings.TrimPrefix(e.Error(), "runtime error: ")
				return
			}
			msg = fmt.Sprint("value: ", r)
		}
	}()
	f()
	return "ok"
}

func main() {
	s := []int{1, 2, 3}
	i := 5
	fmt.Println(safe(func() { _ = s[i] }) != "ok")
	fmt.Println(safe(func() { panic("boom") }))
	fmt.Println(safe(func() { panic(fmt.Errorf("wrapped %d", 1)) }))
	fmt.Println(safe(func() {}))
	var p *struct{ x int }
	fmt.Println(safe(func() { _ = p.x }) != "ok")
	z := 0
	fmt.Println(safe(func() { _ = 1 / z }))
}
