package main

import (
	"container/ring"
	"fmt"
	"unicode/utf16"
)

func main() {
	enc := utf16.Encode([]rune("a😀b"))
	fmt.Println(enc, len(enc))
	fmt.Println(string(utf16.Decode(enc)), utf16.IsSurrogate(rune(enc[1])))
	r := ring.New(4)
	for i := 1; i <= 4; i++ {
		r.Value = i * 10
		r = r.Next()
	}
	sum := 0
	r.Do(func(v any) { sum += v.(int) })
	fmt.Println(sum, r.Len())
	r = r.Move(2)
	fmt.Println(r.Value, r.Prev().Value)
	r.Unlink(1)
	var vals []any
	r.Do(func(v any) { vals = append(vals, v) })
	fmt.Println(vals)
}
