package main

import "fmt"

func main() {
	for i := 0; i < 3; i++ {
		switch i {
		case 1:
			continue M
		}
		fmt.Println(i)
	}
}
