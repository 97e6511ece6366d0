package main

import "fmt"

type State int

const (
	Idle State = iota
	Running
	Done
)

var names = [...]string{Idle: "idle", Running: "running", Done: "done"}

func (s State) String() string { return names[s] }

type Machine struct {
	state State
	log   []string
}

var transitions = map[State][]State{
	Idle:    {Running},
	Running: {Done, Idle},
}

func (m *Machine) To(s State) error {
	for _, ok := range transitions[m.state] {
		if ok == s {
			m.log = append(m.log, fmt.Sprintf("%v->%v", m.state, s))
			m.state = s
			return nil
		}
	}
	return fmt.Errorf("bad transition %v->%v", m.state, s)
}

func main() {
	m := &Machine{}
	fmt.Println(m.To(Running), m.To(Idle), m.To(Done), m.To(Running), m.To(Done))
	fmt.Println(m.log, m.state, len(names))
}
