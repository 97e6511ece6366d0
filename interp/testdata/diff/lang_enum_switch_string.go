package main

import "fmt"

type State int

const (
	Idle State = iota
	Running
	Done
)

func (s State) String() string {
	switch s {
	case Idle:
		return "idle"
	case Running:
		return "running"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

func main() {
	for s := Idle; s <= Done+1; s++ {
		fmt.Println(s)
	}
	fmt.Printf("%v %s\n", Running, Done)
}
