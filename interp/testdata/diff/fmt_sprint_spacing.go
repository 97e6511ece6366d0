package main

import "fmt"

func main() {
	fmt.Println(fmt.Sprint("a", 1, 2, "b", "c", 3.5, nil))
	fmt.Println(fmt.Sprintln("a", 1) + "|")
	fmt.Print("x", 1, "\n")
	fmt.Print(1, 2, "\n")
	var err error
	fmt.Println(err, []string(nil), map[int]int(nil))
}
