// A panic in a cell is an error named panic, with the value.
// cell
func explode(n int) {
	if n > 2 {
		panic("boom at three")
	}
}
// cell
explode(1)
explode(3)
// Error:
panic: boom at three
