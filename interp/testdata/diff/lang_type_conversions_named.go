package main

import (
	"fmt"
	"strconv"
)

type Meters float64
type Feet float64
type IDs []int
type Handler func(string) string

func (m Meters) ToFeet() Feet { return Feet(m * 3.28084) }
func (ids IDs) Sum() (s int) {
	for _, v := range ids {
		s += v
	}
	return
}
func (h Handler) Twice(s string) string { return h(h(s)) }

func main() {
	m := Meters(10)
	fmt.Printf("%.2f\n", m.ToFeet())
	raw := []int{1, 2, 3}
	fmt.Println(IDs(raw).Sum(), len(IDs(nil)))
	h := Handler(func(s string) string { return s + "!" })
	fmt.Println(h.Twice("hi"))
	var f float64 = float64(m) + 0.5
	fmt.Println(f, int(f), int64(-f), uint8(300%256))
	fmt.Println(strconv.Itoa(int('A')), string(rune(97)), []byte("hi"), string([]byte{104, 105}))
	type celsius = float64
	var c celsius = 21.5
	fmt.Printf("%T %v\n", c, c)
}
