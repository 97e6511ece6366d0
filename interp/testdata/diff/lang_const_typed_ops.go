package main

import (
	"fmt"
	"time"
)

type Bytes int64

const (
	B  Bytes = 1
	KB       = 1024 * B
	MB       = 1024 * KB
)

func (b Bytes) String() string {
	switch {
	case b >= MB:
		return fmt.Sprintf("%.1fMB", float64(b)/float64(MB))
	case b >= KB:
		return fmt.Sprintf("%.1fKB", float64(b)/float64(KB))
	}
	return fmt.Sprintf("%dB", int64(b))
}

func main() {
	fmt.Println(B, KB, MB, 3*MB/2, Bytes(1500))
	const timeout = 2 * time.Second
	fmt.Println(timeout, timeout/4, time.Duration(3)*time.Millisecond)
	const ratio = 3 / 2
	const fratio = 3 / 2.0
	fmt.Println(ratio, fratio)
	var x uint8 = 255
	x++
	fmt.Println(x)
	const maxU = ^uint32(0)
	fmt.Println(maxU, maxU>>16)
}
