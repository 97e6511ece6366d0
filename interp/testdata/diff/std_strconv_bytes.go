package main

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

func main() {
	for _, s := range []string{"42", "-7", "0x1f", "abc", "99999999999999999999"} {
		n, err := strconv.ParseInt(s, 0, 64)
		fmt.Println(n, err)
	}
	fmt.Println(strconv.FormatFloat(3.14159, 'f', 2, 64), strconv.FormatFloat(1e21, 'g', -1, 64))
	fmt.Println(strconv.AppendInt([]byte("n="), 12, 10), string(strconv.AppendQuote(nil, "q")))
	u, err := strconv.Unquote(`"a\nb"`)
	fmt.Printf("%q %v\n", u, err)
	sc := bufio.NewScanner(strings.NewReader("one two\nthree\n"))
	sc.Split(bufio.ScanWords)
	var words []string
	for sc.Scan() {
		words = append(words, sc.Text())
	}
	fmt.Println(words, len(words))
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	fmt.Fprintf(w, "%d-%s", 1, "x")
	w.Flush()
	fmt.Println(buf.String(), bytes.Contains(buf.Bytes(), []byte("-")))
	fields := bytes.Fields([]byte(" a b  c "))
	fmt.Println(len(fields), string(bytes.Join(fields, []byte(","))))
}
