package main

type T struct{}

func (T) M() {}

func (T) M() {}

func main() {
}
