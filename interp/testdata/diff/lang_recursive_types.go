package main

import (
	"fmt"
	"strings"
)

type Expr interface {
	Eval(env map[string]float64) float64
	String() string
}

type Num float64
type Var string
type Bin struct {
	Op   byte
	L, R Expr
}

func (n Num) Eval(map[string]float64) float64   { return float64(n) }
func (n Num) String() string                    { return fmt.Sprint(float64(n)) }
func (v Var) Eval(e map[string]float64) float64 { return e[string(v)] }
func (v Var) String() string                    { return string(v) }
func (b Bin) Eval(e map[string]float64) float64 {
	l, r := b.L.Eval(e), b.R.Eval(e)
	switch b.Op {
	case '+':
		return l + r
	case '*':
		return l * r
	case '-':
		return l - r
	}
	return l / r
}
func (b Bin) String() string {
	return "(" + strings.Join([]string{b.L.String(), string(b.Op), b.R.String()}, " ") + ")"
}

func main() {
	e := Bin{'+', Num(2), Bin{'*', Var("x"), Bin{'-', Var("y"), Num(1)}}}
	env := map[string]float64{"x": 3, "y": 5}
	fmt.Println(e.String(), "=", e.Eval(env))
	var exprs = []Expr{Num(1.5), Var("y"), Bin{'/', Num(1), Num(4)}}
	for _, x := range exprs {
		fmt.Println(x.String(), x.Eval(env))
	}
}
