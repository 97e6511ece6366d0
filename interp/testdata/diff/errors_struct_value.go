package main

import (
	"errors"
	"fmt"
)

type codeErr struct {
	code int
	msg  string
}

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code, " ", e.msg) }
func find(n int) error          { return codeErr{n, "find"} }
func kind(err error) string {
	switch e := err.(type) {
	case nil:
		return "nil"
	case codeErr:
		return fmt.Sprint("codeErr ", e.code)
	}
	return "other"
}
func main() {
	var ce codeErr
	fmt.Println(errors.As(fmt.Errorf("w: %w", codeErr{1, "a"}), &ce), ce.code, ce.msg)
	fmt.Println(errors.As(find(2), &ce), ce.code, ce.msg)
	errs := []error{codeErr{3, "c"}, errors.New("plain")}
	fmt.Println(errors.As(errs[0], &ce), ce.code, errors.As(errs[1], &ce))
	ch := make(chan error, 1)
	ch <- codeErr{4, "d"}
	got := <-ch
	c, ok := got.(codeErr)
	fmt.Println(c.code, ok, kind(got), kind(find(5)), kind(errs[1]), kind(nil))
	var err error = codeErr{6, "f"}
	fmt.Println(err == codeErr{6, "f"}, err == codeErr{6, "g"}, errors.Is(find(7), codeErr{7, "find"}))
	fmt.Printf("%v|%s|%T\n", err, err, ce)
}
