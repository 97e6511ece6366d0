package main

func f(a int, a string) {}

func main() {
	f(1, "a")
}
