package main

import "fmt"

type ValidationError struct {
	Field string
}

func (e *ValidationError) Error() string { return "invalid field " + e.Field }

func validate(name string) {
	if name == "" {
		panic(&ValidationError{"name"})
	}
	fmt.Println("valid", name)
}

func main() {
	validate("ann")
	validate("")
}
