package main

import "fmt"

type codeErr struct{ code int }

func (e codeErr) Error() string { return fmt.Sprint("code ", e.code) }

type ptrErr struct{}

func (*ptrErr) Error() string { return "ptr" }

func kind(v any) string {
	switch x := v.(type) {
	case codeErr:
		return fmt.Sprint("codeErr ", x.code)
	case *ptrErr:
		return "ptr " + x.Error()
	}
	return "other"
}

func main() {
	fmt.Println(kind(codeErr{1}), kind(&ptrErr{}), kind(3))
}
