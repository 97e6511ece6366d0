package main

import (
	"fmt"
	"sort"
)

// Shape is implemented by empty struct types, the strategy pattern.
type Shape interface {
	Name() string
	Sides() int
}

type square struct{}

func (square) Name() string { return "square" }
func (square) Sides() int   { return 4 }

type circle struct{}

func (circle) Name() string { return "circle" }
func (circle) Sides() int   { return 0 }

type triangle struct{}

func (t triangle) Name() string { return "triangle" }
func (t triangle) Sides() int   { return 3 }

type token struct{}

func main() {
	shapes := []Shape{square{}, circle{}, triangle{}}
	for _, s := range shapes {
		fmt.Printf("%s %d %T\n", s.Name(), s.Sides(), s)
	}

	var x any = square{}
	fmt.Println(x.(Shape).Name())
	if _, ok := x.(circle); ok {
		fmt.Println("square is a circle")
	}
	switch x.(type) {
	case circle:
		fmt.Println("case circle")
	case square:
		fmt.Println("case square")
	}

	byName := map[string]Shape{"sq": square{}, "ci": circle{}}
	keys := make([]string, 0, len(byName))
	for k := range byName {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, byName[k].Name())
	}

	// Comparisons and map keys of empty struct values.
	fmt.Println(square{} == square{}, x == any(square{}), x == any(circle{}))
	byShape := map[Shape]int{square{}: 4, circle{}: 0}
	fmt.Println(len(byShape))

	// Sets stay sets of struct{}.
	set := map[string]struct{}{}
	set["a"] = struct{}{}
	set["b"] = struct{}{}
	_, has := set["a"]
	fmt.Println(len(set), has)

	// Unnamed empty structs convert to the named ones.
	var e struct{} = struct{}{}
	sq := square(e)
	tk := token(struct{}{})
	var t2 token = struct{}{}
	fmt.Println(sq.Name(), tk == t2)
	done := make(chan struct{})
	go func() { done <- struct{}{} }()
	<-done
	fmt.Printf("%v %+v %#v\n", square{}, circle{}, tk)
}
