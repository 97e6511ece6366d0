// Running the same cell twice works; redefining a method rebuilds.
// cell
import "fmt"
type dog struct{ name string }
func (d dog) Speak() string { return d.name + " says woof" }
func greet(d dog) string { return d.Speak() }
total := 0
// cell
import "fmt"
type dog struct{ name string }
func (d dog) Speak() string { return d.name + " says woof" }
func greet(d dog) string { return d.Speak() }
total++
greet(dog{"rex"})
// cell
func (d dog) Speak() string { return d.name + " says wuff" }
fmt.Println(greet(dog{"rex"}), total)
// Output:
"rex says woof"
rex says wuff 1
