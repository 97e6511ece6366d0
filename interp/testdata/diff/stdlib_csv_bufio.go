package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"strings"
)

func main() {
	r := csv.NewReader(strings.NewReader("a,b\n1,\"x,y\"\n"))
	recs, err := r.ReadAll()
	fmt.Println(recs, len(recs), err)
	sc := bufio.NewScanner(strings.NewReader("one two\nthree"))
	sc.Split(bufio.ScanWords)
	n := 0
	for sc.Scan() {
		n++
		fmt.Print(sc.Text(), ";")
	}
	fmt.Println(n)
}
