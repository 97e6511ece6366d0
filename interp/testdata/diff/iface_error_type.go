package main

import (
	"errors"
	"fmt"
)

type NotFound struct{ Name string }

func (e *NotFound) Error() string { return e.Name + " not found" }

func find(name string) error {
	if name == "x" {
		return nil
	}
	return &NotFound{name}
}

func main() {
	fmt.Println(find("x"))
	err := find("y")
	fmt.Println(err)
	var nf *NotFound
	fmt.Println(errors.As(err, &nf))
}
