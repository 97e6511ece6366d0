package main

import (
	"fmt"
	"regexp"
)

func main() {
	re := regexp.MustCompile(`(\w+)@(\w+)\.com`)
	fmt.Println(re.MatchString("bob@example.com"))
	fmt.Println(re.FindStringSubmatch("mail ann@site.com now"))
	fmt.Println(re.ReplaceAllString("x@y.com", "$2:$1"))
	fmt.Println(regexp.MustCompile(`\d+`).FindAllString("a1b22c333", -1))
}
