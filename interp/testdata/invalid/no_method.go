package main

type T struct{}

func main() {
	var t T
	t.Foo()
}
