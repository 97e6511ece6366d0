package main

import (
	"fmt"
	"os"
)

func main() {
	done := make(chan struct{})
	go func() {
		fmt.Println("worker exiting")
		os.Exit(5)
		close(done)
	}()
	<-done
	fmt.Println("never")
}
