package main

import "fmt"

func kind(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case int, int64:
		return fmt.Sprintf("integer %v", x)
	case string:
		return "string of " + fmt.Sprint(len(x))
	case []int:
		return fmt.Sprint("slice ", len(x))
	case error:
		return "error " + x.Error()
	case fmt.Stringer:
		return "stringer"
	case func() int:
		return fmt.Sprint("func ", x())
	default:
		return fmt.Sprintf("other %T", x)
	}
}

func main() {
	vals := []any{nil, 1, int64(2), "abc", []int{1, 2}, fmt.Errorf("e"), func() int { return 9 }, 3.5, map[string]int{}}
	for _, v := range vals {
		fmt.Println(kind(v))
	}
}
