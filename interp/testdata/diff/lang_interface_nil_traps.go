package main

import (
	"errors"
	"fmt"
)

type MyErr struct{}

func (*MyErr) Error() string { return "my error" }

func mayFail(fail bool) error {
	if fail {
		return &MyErr{}
	}
	return nil
}

func main() {
	err := mayFail(false)
	fmt.Println(err == nil)
	err = mayFail(true)
	fmt.Println(err == nil, err)
	var e1 error = errors.New("x")
	var e2 error = errors.New("x")
	fmt.Println(e1 == e2, e1.Error() == e2.Error())
	var s fmt.Stringer
	fmt.Println(s == nil)
	var a, b any = 1, 1
	fmt.Println(a == b, a != any(2))
	var c any = []int{1}
	fmt.Println(c != nil)
}
