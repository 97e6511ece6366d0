package main

import "fmt"

func main() {
	var i any = 1
	switch i.(type) {
	case int, int:
		fmt.Println("int")
	}
}
