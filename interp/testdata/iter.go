// The iter package is named as unsupported.
// cell
import "iter"
// Error:
unsupported: package "iter"
