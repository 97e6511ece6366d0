package main

import (
	"errors"
	"fmt"
)

var ErrBase = errors.New("base")

func main() {
	err := fmt.Errorf("layer2: %w", fmt.Errorf("layer1: %w", ErrBase))
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrBase), errors.Unwrap(errors.Unwrap(err)) == ErrBase)
	j := errors.Join(errors.New("a"), errors.New("b"))
	fmt.Println(j)
}
