// A cell that declares main runs it once.
// cell
import "fmt"
func main() {
	fmt.Println("hello from main")
}
// cell
fmt.Println("next cell")
// Output:
hello from main
next cell
