package main

func main() {
	clear(0)
}
