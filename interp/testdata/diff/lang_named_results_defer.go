package main

import (
	"errors"
	"fmt"
)

func op(fail bool) (res string, err error) {
	defer func() {
		if err != nil {
			res = "failed: " + err.Error()
		}
	}()
	if fail {
		return "", errors.New("boom")
	}
	return "ok", nil
}

func main() {
	fmt.Println(op(false))
	fmt.Println(op(true))
}
