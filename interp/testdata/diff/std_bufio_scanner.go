package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	input := "first line\nsecond line\n\nlast"
	sc := bufio.NewScanner(strings.NewReader(input))
	n := 0
	for sc.Scan() {
		n++
		fmt.Printf("%d: %q\n", n, sc.Text())
	}
	fmt.Println(sc.Err())
	ws := bufio.NewScanner(strings.NewReader("the quick  brown\tfox"))
	ws.Split(bufio.ScanWords)
	var words []string
	for ws.Scan() {
		words = append(words, ws.Text())
	}
	fmt.Println(len(words), words)
	rs := bufio.NewScanner(strings.NewReader("héj"))
	rs.Split(bufio.ScanRunes)
	for rs.Scan() {
		fmt.Print(rs.Text(), "|")
	}
	fmt.Println()
	br := bufio.NewReader(strings.NewReader("k=v;x=y"))
	kv, err := br.ReadString(';')
	fmt.Printf("%q %v\n", kv, err)
	rest, err := br.ReadString(';')
	fmt.Printf("%q %v\n", rest, err)
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	fmt.Fprintf(w, "%d-%s", 7, "buffered")
	fmt.Println(sb.Len())
	w.Flush()
	fmt.Println(sb.String())
}
