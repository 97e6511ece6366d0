// Trailing expressions show their values; calls of no value show nothing.
// cell
import (
	"errors"
	"fmt"
)
func two() (int, string) { return 1, "a" }
func none() {}
// cell
42
// cell
"text"
// cell
two()
// cell
none()
// cell
fmt.Println("printed")
// cell
errors.New("boom")
// cell
[]int{1, 2}
// Output:
42
"text"
1, "a"
printed
boom
[1 2]
