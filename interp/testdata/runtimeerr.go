// Index out of range is a runtime error.
// cell
var s []int
s[3] = 1
// Error:
runtime error: index out of range
