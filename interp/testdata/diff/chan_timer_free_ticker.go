package main

import (
	"fmt"
	"sync"
)

type Broadcaster struct {
	mu   sync.Mutex
	subs []chan string
}

func (b *Broadcaster) Subscribe() <-chan string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan string, 4)
	b.subs = append(b.subs, ch)
	return ch
}

func (b *Broadcaster) Send(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		s <- msg
	}
}

func (b *Broadcaster) Close() {
	for _, s := range b.subs {
		close(s)
	}
}

func main() {
	var b Broadcaster
	a := b.Subscribe()
	c := b.Subscribe()
	b.Send("one")
	b.Send("two")
	b.Close()
	for m := range a {
		fmt.Print("a:", m, " ")
	}
	for m := range c {
		fmt.Print("c:", m, " ")
	}
	fmt.Println()
}
