package main

import (
	"log"
	"os"
)

func main() {
	l := log.New(os.Stdout, "app: ", 0)
	l.Println("hello", 42)
	l.Printf("%d items", 3)
	l.SetPrefix("[x] ")
	l.Print("changed prefix")
	l.SetFlags(log.Lmsgprefix)
	l.Println("msgprefix")
	log.SetOutput(os.Stdout)
	log.SetFlags(0)
	log.Println("std logger")
}
