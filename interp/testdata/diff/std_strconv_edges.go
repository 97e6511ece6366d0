package main

import (
	"errors"
	"fmt"
	"strconv"
)

func main() {
	for _, s := range []string{"42", "-0", "+7", " 1", "1e3", "9223372036854775808", "0x1f"} {
		n, err := strconv.Atoi(s)
		fmt.Println(n, err)
	}
	v, err := strconv.ParseInt("0x1f", 0, 64)
	fmt.Println(v, err)
	v, err = strconv.ParseInt("-101", 2, 8)
	fmt.Println(v, err)
	_, err = strconv.ParseInt("300", 10, 8)
	fmt.Println(errors.Is(err, strconv.ErrRange))
	u, err := strconv.ParseUint("-1", 10, 64)
	fmt.Println(u, err)
	f, err := strconv.ParseFloat("1_000.5", 64)
	fmt.Println(f, err)
	f, _ = strconv.ParseFloat("inf", 64)
	fmt.Println(f)
	b, err := strconv.ParseBool("T")
	fmt.Println(b, err)
	fmt.Println(strconv.Quote("tab\there\"é\x00"), strconv.QuoteToASCII("é"))
	uq, err := strconv.Unquote(`"a\nb"`)
	fmt.Printf("%q %v\n", uq, err)
	fmt.Println(strconv.FormatInt(-255, 16), strconv.FormatUint(255, 2), strconv.Itoa(-0))
	fmt.Println(string(strconv.AppendInt([]byte("n="), 12, 10)))
}
