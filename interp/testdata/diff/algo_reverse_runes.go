package main

import (
	"fmt"
	"strings"
)

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func isPalindrome(s string) bool {
	s = strings.ToLower(s)
	return s == reverse(s)
}

func main() {
	fmt.Println(reverse("héllo, 世界"), isPalindrome("Racecar"), isPalindrome("go"))
}
