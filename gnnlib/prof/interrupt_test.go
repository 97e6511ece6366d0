package prof_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
	"github.com/gnnlab/gnnlab/gnnlib/prof"
)

// Time stops repeating once gnnlib/interrupt is raised, and
// MeasureSpeedup returns an *interrupt.Error.
func TestTimeInterrupted(t *testing.T) {
	defer interrupt.Clear()
	runs := 0
	fn := func() {
		runs++
		if runs == 3 {
			interrupt.Raise()
		}
		time.Sleep(time.Millisecond)
	}
	st := prof.Time(fn, prof.Options{Repeats: 1000})
	if runs != 3 || st.N != 3 {
		t.Errorf("Time interrupted at the third run: %d runs, N = %d, want 3 and 3", runs, st.N)
	}
	if _, err := prof.MeasureSpeedup(func() {}, []int{1, 2}, prof.Options{Repeats: 2}); !errors.Is(err, interrupt.ErrInterrupted) {
		t.Errorf("MeasureSpeedup while raised = %v, want an interrupt error", err)
	}
	interrupt.Clear()
	if st := prof.Time(func() {}, prof.Options{Repeats: 4}); st.N != 4 {
		t.Errorf("Time after Clear: N = %d, want 4", st.N)
	}
}
