// A cell mixes statements, declarations and imports in any order.
// cell
x := 3
func double(n int) int { return 2 * n }
import "fmt"
fmt.Println(double(x))
type pair struct{ a, b int }
p := pair{1, 2}
p.a + p.b
// cell
fmt.Println("second", x, double(p.b))
var y = double(10)
y
// Output:
6
3
second 3 4
20
