package main

func main() {
	goto L
}
