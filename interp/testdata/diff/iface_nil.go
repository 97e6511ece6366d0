package main

import "fmt"

type E struct{}

func (*E) Error() string { return "E" }

func get(fail bool) error {
	var p *E
	if fail {
		return p
	}
	return nil
}

func main() {
	fmt.Println(get(false) == nil, get(true) == nil)
}
