package main

import (
	"fmt"
	"strings"
)

type Celsius float64
type Words []string

func (c Celsius) F() float64 { return float64(c)*9/5 + 32 }
func (w Words) Join() string { return strings.Join(w, "-") }
func (w Words) Len() int     { return len(w) }

func main() {
	fmt.Println(Celsius(100).F(), Words{"a", "b"}.Join(), Words{"x"}.Len())
}
