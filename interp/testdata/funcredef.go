// Redefining a function updates the functions defined earlier that call it;
// recursion works through the function variable.
// cell
import "fmt"
func base() int { return 1 }
func user() int { return base() * 10 }
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}
fmt.Println(user(), fib(10))
// cell
func base() int { return 2 }
user()
// cell
var counter int
func inc() { counter++ }
inc()
inc()
counter
// Output:
10 55
20
2
