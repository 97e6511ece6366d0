package main

import "fmt"

type Logger struct{ prefix string }

func (l *Logger) Log(s string) { fmt.Println(l.prefix + s) }

type Service struct {
	*Logger
	name string
}

func main() {
	s := Service{&Logger{"[svc] "}, "api"}
	s.Log("started " + s.name)
	s.prefix = "[new] "
	s.Log("again")
}
