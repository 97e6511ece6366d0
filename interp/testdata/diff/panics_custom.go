package main

import (
	"errors"
	"fmt"
)

type MyErr struct{ Code int }

func (e *MyErr) Error() string { return fmt.Sprintf("code %d", e.Code) }

func risky(n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case error:
				err = fmt.Errorf("wrapped: %w", v)
			case string:
				err = errors.New(v)
			default:
				err = fmt.Errorf("unknown %v", v)
			}
		}
	}()
	switch n {
	case 0:
		panic(&MyErr{42})
	case 1:
		panic("plain")
	case 2:
		panic(3.5)
	}
	return nil
}

func main() {
	for i := 0; i < 4; i++ {
		err := risky(i)
		fmt.Println(err)
		var me *MyErr
		if errors.As(err, &me) {
			fmt.Println("code", me.Code)
		}
	}
	var m map[string]int
	defer func() {
		fmt.Println("recovered:", recover())
	}()
	m["x"] = 1
}
