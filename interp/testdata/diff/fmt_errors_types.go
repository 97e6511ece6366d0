package main

import (
	"errors"
	"fmt"
)

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprintf("code %d", e.code) }

func main() {
	var err error = codeErr{404}
	fmt.Println(err)
	fmt.Printf("%v|%s|%+v\n", err, err, err)
	w := fmt.Errorf("request: %w", err)
	fmt.Println(w, errors.Unwrap(w) == err)
}
