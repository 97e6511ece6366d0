package viz

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/gnnlab/gnnlab/viz/display"
)

// MinUpdateInterval is the shortest time between two live updates of
// TrainingCurves: ten a second is smooth to watch and cheap to render.
const MinUpdateInterval = 100 * time.Millisecond

// renderShare bounds the time live updates take: after an update that took
// d to draw and publish, the next waits at least renderShare·d, so drawing
// takes at most about 1/(renderShare+1) of a training loop however slow
// the machine (a loaded 2-core one draws a plot in about half a second).
const renderShare = 9

// displayIDs numbers the display ids of this process.
var displayIDs atomic.Int64

// TrainingCurves is a live plot of training metrics: Add a row of values
// per epoch, and once Show has displayed it, each Add updates the same
// output (one display id) at most ten times a second, and less often
// when drawing takes longer than a hundredth of a second, so that the
// updates take at most about a tenth of the loop's time. Call Flush after
// the loop so that the last epochs, which the throttle may have held
// back, are shown. Series whose name contains "loss" share the left
// panel; the others (accuracies) the right one.
type TrainingCurves struct {
	mu      sync.Mutex
	names   []string
	epochs  []float64
	values  [][]float64 // values[series][row]
	id      string
	shown   bool
	pending bool
	last    time.Time     // when the last update ended
	cost    time.Duration // how long the last update took to draw and publish
	// now is the clock, replaced by tests.
	now func() time.Time
}

// NewTrainingCurves returns curves for the named series, e.g.
// NewTrainingCurves("loss", "train acc", "val acc").
func NewTrainingCurves(names ...string) *TrainingCurves {
	return &TrainingCurves{
		names:  append([]string(nil), names...),
		values: make([][]float64, len(names)),
		id:     fmt.Sprintf("gnnlab-training-%d-%d", time.Now().UnixNano(), displayIDs.Add(1)),
		now:    time.Now,
	}
}

// Add records the values of one epoch, in the order of the names given to
// NewTrainingCurves, and updates the display if it is shown and the last
// update is old enough. It returns an error when the number of values is
// wrong.
func (tc *TrainingCurves) Add(epoch float64, values ...float64) error {
	tc.mu.Lock()
	if len(values) != len(tc.names) {
		tc.mu.Unlock()
		return fmt.Errorf("%w: %d values for %d series (%s)", ErrData, len(values), len(tc.names), strings.Join(tc.names, ", "))
	}
	tc.epochs = append(tc.epochs, epoch)
	for i, v := range values {
		tc.values[i] = append(tc.values[i], v)
	}
	tc.pending = true
	tc.mu.Unlock()
	tc.Update()
	return nil
}

// Len returns the number of epochs added.
func (tc *TrainingCurves) Len() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return len(tc.epochs)
}

// Show displays the curves under their display id; later updates replace
// this output.
func (tc *TrainingCurves) Show() {
	tc.mu.Lock()
	tc.shown, tc.pending, tc.last = true, false, tc.now()
	b := tc.bundleLocked()
	tc.mu.Unlock()
	display.Show(b)
}

// Update refreshes the shown output if there is something new and the
// previous update ended at least MinUpdateInterval ago (and at least nine
// times as long ago as it took); otherwise it leaves the change pending
// for a later Update or Flush.
func (tc *TrainingCurves) Update() {
	tc.mu.Lock()
	if !tc.shown || !tc.pending || tc.now().Sub(tc.last) < max(MinUpdateInterval, renderShare*tc.cost) {
		tc.mu.Unlock()
		return
	}
	tc.publishLocked()
}

// Flush refreshes the shown output now if anything changed since the last
// update (or shows it, if Show was never called).
func (tc *TrainingCurves) Flush() {
	tc.mu.Lock()
	if !tc.shown {
		tc.mu.Unlock()
		tc.Show()
		return
	}
	if !tc.pending {
		tc.mu.Unlock()
		return
	}
	tc.publishLocked()
}

// publishLocked renders and publishes an update; it unlocks tc.mu before
// publishing so that a slow frontend does not hold the lock.
func (tc *TrainingCurves) publishLocked() {
	start := tc.now()
	tc.pending, tc.last = false, start // throttles concurrent Updates meanwhile
	b := tc.bundleLocked()
	tc.mu.Unlock()
	display.Update(b)
	end := tc.now()
	tc.mu.Lock()
	tc.last, tc.cost = end, end.Sub(start)
	tc.mu.Unlock()
}

func (tc *TrainingCurves) bundleLocked() display.Bundle {
	b := tc.figureLocked().Render()
	b.DisplayID = tc.id
	return b
}

// Render returns the current curves as a bundle (without the display id:
// a cell ending in tc shows a still copy).
func (tc *TrainingCurves) Render() display.Bundle {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.figureLocked().Render()
}

// Figure returns the current curves as a figure.
func (tc *TrainingCurves) Figure() *Figure {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.figureLocked()
}

func (tc *TrainingCurves) figureLocked() *Figure {
	var loss, other []int
	for i, n := range tc.names {
		if strings.Contains(strings.ToLower(n), "loss") {
			loss = append(loss, i)
		} else {
			other = append(other, i)
		}
	}
	f := &Figure{Width: DefaultWidth, Height: DefaultHeight, DPI: DefaultDPI}
	var desc []string
	for _, group := range [][]int{loss, other} {
		if len(group) == 0 {
			continue
		}
		ylabel := "loss"
		if !strings.Contains(strings.ToLower(tc.names[group[0]]), "loss") {
			ylabel = "value"
			if allContain(tc.names, group, "acc") {
				ylabel = "accuracy"
			}
		}
		p := newPlot("", "epoch", ylabel)
		grid(p)
		for _, i := range group {
			xys := make(plotter.XYs, len(tc.epochs))
			for j, e := range tc.epochs {
				xys[j] = plotter.XY{X: e, Y: tc.values[i][j]}
			}
			if len(xys) == 0 {
				continue
			}
			l := line(xys, Color(i), 1.5, false)
			p.Add(l)
			p.Legend.Add(tc.names[i], l)
			desc = append(desc, fmt.Sprintf("%s %.4g", tc.names[i], tc.values[i][len(xys)-1]))
		}
		if ylabel == "accuracy" {
			p.Legend.Top = false
			p.Y.Max = max(p.Y.Max, 1)
		}
		f.Plots = append(f.Plots, p)
	}
	if len(f.Plots) == 0 {
		f.Plots = append(f.Plots, newPlot("", "epoch", ""))
	}
	title := "Training"
	if n := len(tc.epochs); n > 0 {
		title = fmt.Sprintf("Training: epoch %g", tc.epochs[n-1])
	}
	f.Plots[0].Title.Text = title
	if len(f.Plots) == 2 {
		// A title on both panels keeps their axes level.
		f.Plots[1].Title.Text = f.Plots[1].Y.Label.Text
		f.Width = 9 * DefaultWidth / 6
		f.Height = 3.5 * DefaultHeight / 4
	}
	f.Description = title
	if len(desc) > 0 {
		f.Description += ": " + strings.Join(desc, ", ")
	}
	return f
}

func allContain(names []string, idx []int, sub string) bool {
	for _, i := range idx {
		if !strings.Contains(strings.ToLower(names[i]), sub) {
			return false
		}
	}
	return true
}
