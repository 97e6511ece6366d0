package main

import "fmt"

type Meters float64
type Feet float64

func toFeet(m Meters) Feet { return Feet(m * 3.28084) }

func main() {
	fmt.Printf("%.2f\n", toFeet(10))
	b := []byte("hey")
	s := string(b)
	r := []rune("héy")
	fmt.Println(s, len(r), string(r[1]), string(rune(65)))
	var i interface{} = 42
	n := i.(int)
	f := float64(n) / 5
	fmt.Println(f, int64(f))
}
