// A nil pointer dereference is a runtime error.
// cell
type node struct{ next *node; v int }
var head *node
// cell
head.v
// Error:
runtime error: invalid memory address or nil pointer dereference
