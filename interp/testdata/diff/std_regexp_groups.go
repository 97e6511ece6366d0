package main

import (
	"fmt"
	"regexp"
	"strings"
)

func main() {
	re := regexp.MustCompile(`(?P<key>\w+)=(?P<val>\d+)`)
	s := "a=1, bb=22, c=x, ddd=333"
	fmt.Println(re.FindAllString(s, -1))
	for _, m := range re.FindAllStringSubmatch(s, 2) {
		fmt.Println(m[1], m[2])
	}
	fmt.Println(re.SubexpNames(), re.SubexpIndex("val"))
	fmt.Println(re.ReplaceAllString(s, "${val}:${key}"))
	fmt.Println(re.ReplaceAllStringFunc(s, strings.ToUpper))
	fmt.Println(re.FindStringIndex(s), re.MatchString("nothing"))
	split := regexp.MustCompile(`\s*[,;]\s*`).Split("x , y;z ,w", -1)
	fmt.Printf("%q\n", split)
	_, err := regexp.Compile(`a(b`)
	fmt.Println(err)
	email := regexp.MustCompile(`^[a-z.]+@[a-z]+\.[a-z]{2,}$`)
	for _, e := range []string{"ann@x.org", "bad@", "b.c@d.io"} {
		fmt.Print(email.MatchString(e), " ")
	}
	fmt.Println()
	fmt.Println(regexp.QuoteMeta("1+1=2?"))
}
