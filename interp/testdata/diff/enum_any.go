package main

import "fmt"

type level int

func (l level) String() string { return fmt.Sprint("L", int(l)) }

type color string

func (c color) Error() string { return "bad color " + string(c) }

func kind(v any) string {
	switch x := v.(type) {
	case int:
		return fmt.Sprint("int ", x)
	case string:
		return "string " + x
	case level:
		return fmt.Sprint("level ", int(x))
	case error:
		return "error " + x.Error()
	case fmt.Stringer:
		return "stringer " + x.String()
	}
	return "other"
}

func main() {
	var a any = level(2)
	var c any = color("red")
	fmt.Println(a, c, kind(a), kind(c), kind(3), kind("s"))
	fmt.Println(kind(level(4)), kind(color("blue")))
	_, isInt := a.(int)
	_, isStr := a.(fmt.Stringer)
	_, isErr := c.(error)
	fmt.Println(isInt, isStr, isErr)
	fmt.Printf("%v %T %v %T %s %d\n", a, a, c, c, a, a)
	show(level(5))
}

func show(v any) { fmt.Printf("%v %T\n", v, v) }
