package supervisor

import (
	"testing"

	"github.com/gnnlab/gnnlab/interp/internal/rewrite"
)

// TestCellPositions: the supervisor reads cell positions in crash reports
// as package rewrite writes them.
func TestCellPositions(t *testing.T) {
	if cellFile != rewrite.CellFile || lineStride != rewrite.LineStride {
		t.Errorf("supervisor reads cell positions as file %q, stride %d; rewrite writes %q, %d", cellFile, lineStride, rewrite.CellFile, rewrite.LineStride)
	}
	if got, want := rewrite.VirtualLine(3, 6), 300006; got != want {
		t.Errorf("rewrite.VirtualLine(3, 6) = %d, want %d (cellcode_test.go's directive)", got, want)
	}
}
