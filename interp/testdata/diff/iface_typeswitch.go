package main

import "fmt"

func describe(i any) string {
	switch v := i.(type) {
	case nil:
		return "nil"
	case int:
		return fmt.Sprintf("int %d", v)
	case string:
		return "string " + v
	case []int:
		return fmt.Sprint("slice ", len(v))
	case error:
		return "error " + v.Error()
	case fmt.Stringer:
		return "stringer " + v.String()
	default:
		return fmt.Sprintf("other %v", v)
	}
}

func main() {
	for _, x := range []any{nil, 1, "a", []int{1, 2}, fmt.Errorf("e"), 2.5} {
		fmt.Println(describe(x))
	}
}
