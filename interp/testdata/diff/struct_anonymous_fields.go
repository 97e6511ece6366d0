package main

import "fmt"

func main() {
	people := []struct {
		Name string
		Age  int
	}{{"a", 1}, {"b", 2}}
	total := 0
	for _, p := range people {
		total += p.Age
	}
	fmt.Println(total, people[1].Name)
	pt := &struct{ X, Y int }{3, 4}
	pt.X *= 2
	fmt.Println(pt.X, pt.Y)
}
