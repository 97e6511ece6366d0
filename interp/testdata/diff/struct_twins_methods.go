package main

import "fmt"

type celsius struct{ v float64 }
type fahrenheit struct{ v float64 }

func (c celsius) String() string    { return fmt.Sprintf("%.1f°C", c.v) }
func (f fahrenheit) String() string { return fmt.Sprintf("%.1f°F", f.v) }

type temp interface{ String() string }

func main() {
	c, f := celsius{20}, fahrenheit{68}
	fmt.Println(c, f)
	fmt.Printf("%T %T %v %v\n", c, f, c, f)
	ts := []temp{c, f}
	for _, t := range ts {
		fmt.Println(t.String())
		switch t.(type) {
		case celsius:
			fmt.Println("celsius")
		case fahrenheit:
			fmt.Println("fahrenheit")
		}
	}
	var a any = f
	_, isC := a.(celsius)
	fmt.Println(isC)
}
