package main

import (
	"errors"
	"fmt"
	"os"
)

type level int

func (l level) String() string { return fmt.Sprintf("L%d", int(l)) }

type pt struct{ x, y int }

func (p pt) String() string { return fmt.Sprintf("(%d,%d)", p.x, p.y) }

type code int

func (c code) Error() string { return fmt.Sprintf("code %d", int(c)) }

type ptrS struct{ n int }

func (p *ptrS) String() string { return fmt.Sprintf("P%d", p.n) }

type box struct {
	V    any
	hide any
}

func describe(v any) string { return fmt.Sprint(v) }

func show(v any) { fmt.Printf("%v|%s|%d|%T|%+v|%#v\n", v, v, v, v, v, v) }

func wrap(v any) error { return fmt.Errorf("wrapped: %w", v) }

func angle(v any) string { return fmt.Sprintf("<%v>", v) }

func line(vs ...any) { fmt.Println(vs...) }

func main() {
	fmt.Println(describe(&ptrS{5}), describe(ptrS{6}))
	show(level(3))
	show(pt{1, 2})
	show(code(7))
	show(box{level(2), level(4)})
	e := wrap(code(9))
	fmt.Println(e)
	var c code
	fmt.Println(errors.As(e, &c), c, errors.Is(e, code(9)))
	fmt.Println(angle(level(1)), angle(pt{1, 2}))
	m := map[string]any{"a": level(1), "b": pt{3, 4}, "c": 5, "d": nil}
	fmt.Println(m)
	fmt.Printf("%v %d %+v\n", m, m, m)
	fmt.Println(describe(m), angle(m))
	xs := []any{level(1), pt{3, 4}, "s", code(2), nil}
	fmt.Println(xs, describe(xs))
	fmt.Printf("%v %+v %T %s\n", xs, xs, xs, xs)
	line(xs...)
	nested := [][]any{{level(1)}, {pt{1, 1}}}
	fmt.Println(nested, describe(nested))
	fmt.Println(box{level(3), nil}, []box{{pt{1, 2}, nil}}, &box{V: code(1)})
	fmt.Fprintln(os.Stdout, describe(box{V: []any{level(5)}}))
	var st fmt.Stringer = level(3)
	fmt.Println(describe(st), angle(st))
	for _, v := range xs {
		fmt.Printf("%v;", v)
		show(v)
	}
	fmt.Println(fmt.Errorf("in %v and %v: %w", m, []any{pt{0, 1}}, code(5)))
	s := fmt.Sprint(level(1), pt{2, 3}, "x", 4)
	fmt.Println(s, len(s))
}
