package viz

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/viz/display"
)

// recorder is a display.Publisher that keeps what it is sent.
type recorder struct {
	mu      sync.Mutex
	shows   []display.Bundle
	updates []display.Bundle
	// onUpdate, if set, runs for each update (a slow frontend or render).
	onUpdate func()
}

func (r *recorder) Display(b display.Bundle, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if update && r.onUpdate != nil {
		r.onUpdate()
	}
	if update {
		r.updates = append(r.updates, b)
	} else {
		r.shows = append(r.shows, b)
	}
}

func (r *recorder) ClearOutput(bool) {}

// fakeClock is a clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestTrainingCurvesSlowUpdates checks that updates which take long to
// draw and publish are spaced out, so that they take a bounded share of
// the training loop's time (on a loaded machine a plot takes about half a
// second, and updating ten times a second made a 3-second loop take 2
// minutes).
func TestTrainingCurvesSlowUpdates(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	const cost = 300 * time.Millisecond
	rec := &recorder{onUpdate: func() { clock.advance(cost) }}
	display.SetPublisher(rec)
	defer display.SetPublisher(nil)
	tc := NewTrainingCurves("loss")
	tc.now = clock.now
	tc.Show()
	start := clock.now()
	for e := 0; e < 1000; e++ {
		clock.advance(20 * time.Millisecond)
		if err := tc.Add(float64(e), 1/float64(e+1)); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := clock.now().Sub(start)
	spent := time.Duration(len(rec.updates)) * cost
	// The first update cannot know its cost; after it, each waits
	// renderShare times the last one's.
	if limit := elapsed/(renderShare+1) + cost; spent > limit {
		t.Errorf("%d updates of %v each took %v of %v, want at most %v", len(rec.updates), cost, spent, elapsed, limit)
	}
	if len(rec.updates) < 2 {
		t.Errorf("%d updates in %v, want the curves to keep updating", len(rec.updates), elapsed)
	}
}

func TestTrainingCurvesPublishThroughOneID(t *testing.T) {
	rec := &recorder{}
	display.SetPublisher(rec)
	defer display.SetPublisher(nil)
	clock := &fakeClock{t: time.Unix(0, 0)}
	tc := NewTrainingCurves("loss", "val acc")
	tc.now = clock.now

	tc.Show()
	// 100 epochs, 20 ms apart: 2 s of training. The throttle allows one
	// update per 100 ms, so one epoch in five is published.
	for e := 0; e < 100; e++ {
		clock.advance(20 * time.Millisecond)
		if err := tc.Add(float64(e), 1/float64(e+1), float64(e)/100); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.shows) != 1 {
		t.Fatalf("Show published %d displays, want 1", len(rec.shows))
	}
	if got, want := len(rec.updates), 20; got != want {
		t.Errorf("100 epochs over 2 s published %d updates, want %d (at most one per %v)", got, want, MinUpdateInterval)
	}
	// Epoch 99 came at 2 s, exactly on an update: nothing is pending.
	tc.Flush()
	if got, want := len(rec.updates), 20; got != want {
		t.Errorf("Flush with nothing pending: %d updates, want %d", got, want)
	}
	// Epoch 100 comes 20 ms later: held back until Flush.
	clock.advance(20 * time.Millisecond)
	if err := tc.Add(100, 0.005, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := len(rec.updates), 20; got != want {
		t.Errorf("Add 20 ms after an update: %d updates, want %d (throttled)", got, want)
	}
	tc.Flush()
	if got, want := len(rec.updates), 21; got != want {
		t.Errorf("after Flush: %d updates, want %d", got, want)
	}
	id := rec.shows[0].DisplayID
	if id == "" {
		t.Fatalf("Show published without a display id")
	}
	for i, b := range rec.updates {
		if b.DisplayID != id {
			t.Errorf("update %d has display id %q, want %q", i, b.DisplayID, id)
		}
		if _, ok := b.Data["image/png"].(string); !ok {
			t.Errorf("update %d has no image/png", i)
		}
	}
	if got, want := rec.updates[len(rec.updates)-1].Text(), "Training: epoch 100: loss 0.005, val acc 1"; got != want {
		t.Errorf("last update text = %q, want %q", got, want)
	}
}

func TestTrainingCurvesBeforeShow(t *testing.T) {
	rec := &recorder{}
	display.SetPublisher(rec)
	defer display.SetPublisher(nil)
	tc := NewTrainingCurves("loss")
	for e := 0; e < 5; e++ {
		if err := tc.Add(float64(e), 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.shows)+len(rec.updates) != 0 {
		t.Errorf("Add before Show published %d shows, %d updates; want none", len(rec.shows), len(rec.updates))
	}
	tc.Flush() // shows it
	if len(rec.shows) != 1 || tc.Len() != 5 {
		t.Errorf("Flush before Show: %d shows, %d epochs; want 1, 5", len(rec.shows), tc.Len())
	}
	if err := tc.Add(5, 1, 2); !errors.Is(err, ErrData) {
		t.Errorf("Add with 2 values for 1 series: error %v, want ErrData", err)
	}
	if b := tc.Render(); b.DisplayID != "" {
		t.Errorf("Render() has display id %q, want none (a still copy)", b.DisplayID)
	}
}
