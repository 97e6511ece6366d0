package main

import "fmt"

type Animal struct{ Name string }

func (a Animal) Speak() string { return a.Name + " makes a sound" }
func (a Animal) Kind() string  { return "animal" }

type Dog struct {
	Animal
	Name string
}

func (d Dog) Speak() string { return d.Name + " barks; " + d.Animal.Speak() }

func main() {
	d := Dog{Animal{"generic"}, "rex"}
	fmt.Println(d.Speak())
	fmt.Println(d.Kind(), d.Name, d.Animal.Name)
	type Speaker interface{ Speak() string }
	var s Speaker = d
	fmt.Println(s.Speak())
	s = d.Animal
	fmt.Println(s.Speak())
}
