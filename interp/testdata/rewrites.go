// range over int, min, max and clear work through source rewrites.
// cell
import "fmt"
for i := range 3 {
	fmt.Print(i, " ")
}
fmt.Println()
n := 2
for range n {
	fmt.Print("x")
}
fmt.Println()
var k int
for k = range 4 {
}
fmt.Println(k)
// cell
func count(n int) int {
	s := 0
	for i := range n {
		s += i
	}
	return s
}
count(5)
// cell
fmt.Println(min(3, 1, 2), max(2.5, 1), min("b", "a"))
x := 7
y := 4.5
fmt.Println(max(x, 10), min(y, 2))
// cell
m := map[string]int{"a": 1, "b": 2}
clear(m)
s := []int{1, 2, 3}
clear(s)
fmt.Println(len(m), s)
// Output:
0 1 2 
xx
3
10
1 2.5 a
10 2
0 [0 0 0]
