package main

func main() {
	for {
		break L
	}
}
