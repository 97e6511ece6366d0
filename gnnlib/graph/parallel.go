package graph

import "github.com/gnnlab/gnnlab/gnnlib/internal/parallel"

// parallelRows is parallel.Rows: fn on row ranges of about equal edges
// plus rows; work estimates the total cost.
func parallelRows(indptr []int, work int, fn func(lo, hi int)) { parallel.Rows(indptr, work, fn) }
