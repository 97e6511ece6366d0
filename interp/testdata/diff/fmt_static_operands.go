package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

type Color int

const (
	Red Color = iota
	Green
	Blue
)

func (c Color) String() string { return [...]string{"red", "green", "blue"}[c] }

type Pt struct{ X, Y int }

func (p Pt) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type E struct{ Code int }

func (e *E) Error() string { return fmt.Sprintf("E%d", e.Code) }

type Temp float64

func (t Temp) Format(f fmt.State, verb rune) {
	p, ok := f.Precision()
	if !ok {
		p = 1
	}
	fmt.Fprintf(f, "%.*f°", p, float64(t))
}

type Grid [2][2]Color

type Named struct {
	Name  string
	Color Color
	Pos   *Pt
	Err   error
	Tags  map[string]Color
	priv  Color
}

type IDs []int

type Celsius float64

type Inner struct{ C Color }
type Outer struct {
	Inner
	N int
}

func describe(v any) string { return fmt.Sprint(v) }

func main() {
	fmt.Println(Red, Green, Blue, []Color{Blue, Red})
	fmt.Printf("%v %d %s %q %x %08b %T\n", Green, Green, Green, Green, Green, Green, Green)
	fmt.Printf("%v %+v %#v %T\n", Pt{1, 2}, Pt{1, 2}, Pt{1, 2}, Pt{1, 2})
	fmt.Printf("%v %+v %T\n", &Pt{3, 4}, []*Pt{{5, 6}}, &Pt{})
	var e error = &E{7}
	fmt.Println(e, &E{8})
	fmt.Printf("%v %s %T %d\n", &E{9}, &E{10}, &E{11}, E{12})
	fmt.Println(Temp(36.6), []Temp{1, 2.25})
	fmt.Printf("%.3v|%v|%s\n", Temp(1), Temp(2), Temp(3))
	g := Grid{{Red, Green}, {Blue, Red}}
	fmt.Println(g)
	fmt.Printf("%v %d %T\n", g, g, g)
	n := Named{"a", Blue, &Pt{1, 1}, errors.New("x"), map[string]Color{"k": Green}, Red}
	fmt.Printf("%v\n%+v\n", n, n)
	fmt.Println(IDs{1, 2}, Celsius(1.5))
	fmt.Printf("%v %T %#v\n", IDs{3}, IDs{}, IDs{4})
	fmt.Printf("%v %T %.2f\n", Celsius(2), Celsius(2), Celsius(2.345))
	fmt.Println(Outer{Inner{Green}, 3})
	fmt.Printf("%+v\n", Outer{Inner{Blue}, 4})
	s := fmt.Sprintf("%s-%v", Blue, map[Color]Pt{Red: {1, 2}, Blue: {3, 4}})
	fmt.Println(s, strings.ToUpper(Green.String()))
	fmt.Fprintln(os.Stdout, Red, Pt{0, 0})
	fmt.Fprintf(os.Stdout, "%v|%6s|%-6v|\n", Blue, Red, Green)
	err := fmt.Errorf("bad %v: %w", Blue, &E{1})
	fmt.Println(err)
	var pe *E
	fmt.Println(errors.As(err, &pe), pe.Code)
	b := fmt.Append(nil, Red, " ", Pt{1, 1})
	fmt.Println(string(b))
	fmt.Println(fmt.Sprintln(Green, []Pt{{1, 2}}))
	var np *Pt
	fmt.Println(np)
	fmt.Printf("[%v] [%s]\n", np, []*Pt{nil, {1, 1}})
	type local struct {
		C Color
		p Pt
	}
	fmt.Printf("%v %+v\n", local{Red, Pt{1, 2}}, local{Blue, Pt{}})
	ch := make(chan Color, 1)
	ch <- Blue
	fmt.Println(<-ch)
	fs := []func() Color{func() Color { return Green }}
	fmt.Println(fs[0]())
	mm := map[Pt][]Color{{1, 2}: {Red}}
	fmt.Println(mm)
	fmt.Printf("%v %v\n", [0]Color{}, []Color(nil))
	fmt.Printf("%#v %#v\n", []Color(nil), map[Color]int(nil))
}
