package main

import (
	"fmt"
	"strconv"
)

type Celsius float64
type Fahrenheit float64

func CToF(c Celsius) Fahrenheit { return Fahrenheit(c*9/5 + 32) }

func main() {
	i8, u8, fl := int8(127), uint8(255), 3.9
	fmt.Println(CToF(100), int(fl), i8+1 == -128, u8+1)
	var f float64 = 2.75
	fmt.Println(int(f), int(-f), uint32(1<<32-1))
	s := string(rune(65))
	fmt.Println(s, []byte("hé"), []rune("hé"), string([]rune{104, 105}))
	n, err := strconv.Atoi("12x")
	fmt.Println(n, err)
	x, _ := strconv.ParseFloat("1e3", 64)
	fmt.Println(x, strconv.Itoa(-45), strconv.Quote("a\tb"), strconv.FormatInt(255, 16))
	b, _ := strconv.ParseBool("true")
	fmt.Println(b, fmt.Sprint(Celsius(1.5)))
}
