package main

import (
	"fmt"
	"strconv"
)

func main() {
	for _, f := range []float64{0.1, 1.0 / 3, 2.5e-8, 1e21, 123.456} {
		s := strconv.FormatFloat(f, 'g', -1, 64)
		back, _ := strconv.ParseFloat(s, 64)
		fmt.Println(s, back == f, strconv.FormatFloat(f, 'f', 2, 64), strconv.FormatFloat(f, 'e', -1, 32))
	}
	fmt.Println(strconv.FormatInt(1<<40, 36), strconv.QuoteRune('☺'), strconv.QuoteRuneToASCII('☺'))
	v, err := strconv.ParseFloat("1e400", 64)
	fmt.Println(v, err)
	c, err := strconv.ParseComplex("1+2i", 128)
	fmt.Println(c, err)
	fmt.Println(strconv.IsPrint('\t'), strconv.CanBackquote("a`b"))
}
