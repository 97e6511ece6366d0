package main

import "fmt"

type level int

func (l level) String() string { return fmt.Sprintf("L%d", int(l)) }

type pt struct{ x, y int }

func (p pt) String() string { return fmt.Sprintf("(%d,%d)", p.x, p.y) }

func describe(v any) string { return fmt.Sprint(v) }

func main() {
	fmt.Println(describe(level(3)), describe(pt{1, 2}), describe(7))
	vals := []any{level(1), pt{3, 4}, "s"}
	for _, v := range vals {
		fmt.Println(describe(v))
	}
}
