// Range over a function is named as unsupported, not a yaegi crash.
// cell
func seq(yield func(int) bool) {
	yield(1)
}
// cell
for x := range seq {
	_ = x
}
// Error:
unsupported: range over a function
