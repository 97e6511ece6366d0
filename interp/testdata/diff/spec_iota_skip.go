package main

import "fmt"

type Level uint8

const (
	Debug Level = iota + 1
	_
	Info
	Warn = Info * 10
	Error
)

const (
	bit0, mask0 = 1 << iota, 1<<iota - 1
	bit1, mask1
	_, _
	bit3, mask3
)

type Size float64

const (
	_       = iota
	KB Size = 1 << (10 * iota)
	MB
)

func (l Level) String() string {
	switch l {
	case Debug:
		return "DEBUG"
	case Info:
		return "INFO"
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

func main() {
	fmt.Println(Debug, Info, Warn, Error)
	fmt.Println(bit0, mask0, bit1, mask1, bit3, mask3)
	fmt.Println(KB, MB, MB/KB)
	fmt.Printf("%d %v %T\n", Warn, Warn, Warn)
}
