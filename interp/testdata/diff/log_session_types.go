package main

import (
	"fmt"
	"log"
	"os"
)

type level int

func (l level) String() string { return fmt.Sprintf("L%d", int(l)) }

type pt struct{ x, y int }

func (p pt) String() string { return fmt.Sprintf("(%d,%d)", p.x, p.y) }

type point struct{ x, y int }

type code int

func (c code) Error() string { return fmt.Sprintf("code %d", int(c)) }

func logAny(v any) { log.Println("value:", v) }

func logf(v any) { log.Printf("%v %T", v, v) }

func main() {
	log.SetOutput(os.Stdout)
	log.SetFlags(0)
	log.Println(level(2), pt{1, 2}, code(3))
	log.Printf("%v %s %d %T %+v %#v", level(2), level(2), level(2), level(2), point{1, 2}, point{1, 2})
	log.Print(level(1), "x", pt{3, 4}, 5, 6)
	logAny(level(3))
	logAny(pt{5, 6})
	logf(code(4))
	logf(map[string]any{"a": level(1)})
	log.Println([]level{1, 2}, map[level]pt{1: {1, 1}})
	l := log.New(os.Stdout, "> ", 0)
	l.Println("logger", level(7))
}
