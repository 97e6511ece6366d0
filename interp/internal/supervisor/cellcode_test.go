package supervisor

// cellDown recurses until the stack overflows (n never comes back to 0),
// as a compiled cell's function would: the //line directive gives it
// the positions that the compiled tier gives cell 3's lines 2-6
// (TestSupervisorCrash's recurse-cell, TestCellPositions).
//
//line _.go:300002:1
func cellDown(n int) int {
	if n == -1 {
		return 0
	}
	return cellDown(n+1) + 1
}
