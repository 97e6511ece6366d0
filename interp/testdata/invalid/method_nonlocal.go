package main

func (i int) M() {}

func main() {
}
