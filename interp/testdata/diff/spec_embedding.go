package main

import "fmt"

type Animal struct{ Name string }

func (a Animal) Speak() string    { return a.Name + " makes a sound" }
func (a *Animal) Rename(n string) { a.Name = n }

type Dog struct {
	Animal
	Breed string
}

func (d Dog) Speak() string { return d.Name + " barks" }

type Speaker interface{ Speak() string }

type Logger struct{ prefix string }

func (l Logger) Log(s string) { fmt.Println(l.prefix + s) }

type Service struct {
	Logger
	*Animal
}

func main() {
	d := Dog{Animal{"Rex"}, "lab"}
	fmt.Println(d.Speak(), "|", d.Animal.Speak())
	d.Rename("Max")
	fmt.Println(d.Name)
	var s Speaker = d
	fmt.Println(s.Speak())
	s = d.Animal
	fmt.Println(s.Speak())
	svc := Service{Logger{"> "}, &Animal{"svc"}}
	svc.Log("started " + svc.Name)
	svc.Rename("svc2")
	fmt.Println(svc.Animal.Name)
}
