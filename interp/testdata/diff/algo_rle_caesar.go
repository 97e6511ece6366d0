package main

import (
	"fmt"
	"strconv"
	"strings"
)

func rle(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j] == rs[i] {
			j++
		}
		b.WriteString(strconv.Itoa(j - i))
		b.WriteRune(rs[i])
		i = j
	}
	return b.String()
}

func caesar(s string, k int) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+rune(k)+26)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+rune(k)+26)%26
		}
		return r
	}, s)
}

func main() {
	fmt.Println(rle("aaabccddddé"), rle(""))
	enc := caesar("Hello, World!", 3)
	fmt.Println(enc, caesar(enc, -3))
}
