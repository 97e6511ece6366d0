package interp

import "context"

// EvalCount runs cell as Eval does, numbered n: its positions read
// cell[n]. Frontends pass the execution count they show (In [n]), which
// after a worker restart is ahead of the cells this session ran; n <= 0
// numbers the cell after the last one.
func (s *Session) EvalCount(ctx context.Context, n int, cell string) (Result, error) {
	if n > 0 {
		s.count = n - 1
	}
	return s.Eval(ctx, cell)
}
