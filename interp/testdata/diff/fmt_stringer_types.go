package main

import "fmt"

type Suit int

const (
	Spades Suit = iota
	Hearts
)

func (s Suit) String() string { return [...]string{"♠", "♥"}[s] }

type Card struct {
	Rank int
	Suit Suit
}

func (c Card) String() string { return fmt.Sprintf("%d%v", c.Rank, c.Suit) }

type Hand []Card

type Money int64

func (m Money) String() string { return fmt.Sprintf("$%d.%02d", m/100, m%100) }

func main() {
	c := Card{10, Hearts}
	fmt.Println(c, Spades, Hearts)
	fmt.Printf("%v %s %d\n", c, Hearts, Hearts)
	h := Hand{{1, Spades}, {12, Hearts}}
	fmt.Println(h)
	fmt.Printf("%v\n", h)
	fmt.Println(Money(12345), []Money{5, 100})
	fmt.Printf("%v %d %s\n", Money(7), Money(7), Money(250))
	m := map[Suit]int{Hearts: 2}
	fmt.Println(m)
	ptr := &c
	fmt.Println(ptr)
	fmt.Println(fmt.Sprint(c, " ", Money(1)))
}
