package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Key string }

func (e *NotFound) Error() string { return "not found: " + e.Key }

type Temporary interface{ Temporary() bool }

type netErr struct {
	op   string
	temp bool
}

func (e netErr) Error() string   { return e.op + " failed" }
func (e netErr) Temporary() bool { return e.temp }

type wrapped struct {
	msg string
	err error
}

func (w wrapped) Error() string { return w.msg + ": " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func lookup(k string) error {
	if k == "" {
		return nil
	}
	return wrapped{"lookup", &NotFound{k}}
}

func main() {
	err := lookup("x")
	fmt.Println(err)
	var nf *NotFound
	if errors.As(err, &nf) {
		fmt.Println("key:", nf.Key)
	}
	fmt.Println(lookup("") == nil)
	var e error = netErr{"dial", true}
	if t, ok := e.(Temporary); ok {
		fmt.Println(e, t.Temporary())
	}
	fmt.Printf("%v|%s|%q\n", e, e, e)
	werr := fmt.Errorf("outer: %w", e)
	var ne netErr
	fmt.Println(errors.As(werr, &ne), ne.op)
}
