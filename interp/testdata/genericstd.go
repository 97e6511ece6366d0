// Generic functions of the standard library have no symbols.
// cell
import "slices"
slices.Max([]int{1, 2})
// Error:
unsupported: slices.Max is undefined, or is a generic function
cell[1]:2:
