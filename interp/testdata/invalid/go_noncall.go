package main

func main() {
	go 1
}
