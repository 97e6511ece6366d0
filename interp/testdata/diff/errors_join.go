package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

var ErrA = errors.New("a failed")

type TempErr struct{ op string }

func (e *TempErr) Error() string   { return e.op + ": temporary" }
func (e *TempErr) Temporary() bool { return true }

func main() {
	j := errors.Join(ErrA, io.EOF)
	fmt.Println(j)
	fmt.Println(errors.Is(j, io.EOF), errors.Is(j, ErrA), errors.Is(j, os.ErrNotExist))
	_, err := os.Open("/definitely/not/here")
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	var pe *fs.PathError
	fmt.Println(errors.As(err, &pe), pe.Op)
	w := fmt.Errorf("ctx: %w", &TempErr{"read"})
	var te *TempErr
	fmt.Println(errors.As(w, &te), te.op, te.Temporary())
	fmt.Println(errors.Unwrap(errors.Unwrap(w)) == nil)
	m := fmt.Errorf("two: %w and %w", ErrA, io.EOF)
	fmt.Println(m, errors.Is(m, io.EOF))
}
