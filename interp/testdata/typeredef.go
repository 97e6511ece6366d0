// Redefining a type rebuilds the session: values of unchanged types keep
// their values, variables of the changed type are re-initialised.
// cell
import "fmt"
type pt struct{ X, Y int }
func (p pt) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }
var origin = pt{}
n := 41
n++
// cell
fmt.Println(origin, n)
// cell
type pt struct{ X, Y, Z int }
func (p pt) String() string { return fmt.Sprintf("(%d,%d,%d)", p.X, p.Y, p.Z) }
q := pt{1, 2, 3}
fmt.Println(q, origin, n)
// Output:
(0,0) 42
interp: a type changed, so the session was rebuilt from its declarations; re-initialised: origin
(1,2,3) (0,0,0) 42
