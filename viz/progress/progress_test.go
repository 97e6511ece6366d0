package progress_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/viz/display"
	"github.com/gnnlab/gnnlab/viz/progress"
)

// clock is a fake time source that tests advance by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

type recorder struct {
	mu      sync.Mutex
	bundles []display.Bundle
	updates []bool
}

func (r *recorder) Display(b display.Bundle, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bundles = append(r.bundles, b)
	r.updates = append(r.updates, update)
}
func (r *recorder) ClearOutput(bool) {}

func TestTerminal(t *testing.T) {
	c := newClock()
	var out strings.Builder
	p := progress.NewWith(progress.Options{Total: 10, Label: "epochs", Out: &out, Terminal: true, Now: c.now, Width: 10})
	c.advance(time.Second)
	p.Update(2, "loss", 0.5)
	got := out.String()
	want := "\repochs 2/10 [==>       ]  20% 2 it/s ETA 0:04 loss=0.5"
	if got != want {
		t.Errorf("after Update(2) wrote %q, want %q", got, want)
	}
	c.advance(10 * time.Millisecond)
	p.Update(3, "loss", 0.4) // throttled: within Interval of the last drawing
	if out.String() != got {
		t.Errorf("Update within the interval drew again: %q", out.String()[len(got):])
	}
	c.advance(4 * time.Second)
	p.Update(10, "loss", 0.25, "acc", 0.9)
	p.Done()
	last := out.String()[strings.LastIndex(out.String(), "\r"):]
	wantLast := "\repochs 10/10 [==========] 100% 2 it/s in 0:05 loss=0.25 acc=0.9\n"
	if last != wantLast {
		t.Errorf("final line = %q, want %q", last, wantLast)
	}
}

func TestNotebookThrottled(t *testing.T) {
	r := &recorder{}
	display.SetPublisher(r)
	defer display.SetPublisher(nil)
	c := newClock()
	p := progress.NewWith(progress.Options{Total: 1000, Label: "batches", Now: c.now})
	// 1000 steps of 1 ms: one second, so at most ~10 drawings plus Done.
	for i := 1; i <= 1000; i++ {
		c.advance(time.Millisecond)
		p.Update(i, "loss", 1/float64(i))
	}
	p.Done()
	if n := len(r.bundles); n < 2 || n > 12 {
		t.Fatalf("published %d bundles for 1000 updates in 1 s, want 2..12", n)
	}
	id := r.bundles[0].DisplayID
	for k, b := range r.bundles {
		if b.DisplayID != id || id == "" {
			t.Errorf("bundle %d DisplayID = %q, want %q", k, b.DisplayID, id)
		}
		if r.updates[k] != (k > 0) {
			t.Errorf("bundle %d update = %v, want %v", k, r.updates[k], k > 0)
		}
	}
	final := r.bundles[len(r.bundles)-1]
	if html, _ := final.Data["text/html"].(string); !strings.Contains(html, `<progress value="1000" max="1000"`) {
		t.Errorf("final HTML = %q, want a full <progress>", html)
	}
	if !strings.Contains(final.Text(), "1000/1000") || !strings.Contains(final.Text(), "loss=0.001") {
		t.Errorf("final text = %q, want the count and the loss", final.Text())
	}
}

func TestUnknownTotal(t *testing.T) {
	c := newClock()
	var out strings.Builder
	p := progress.NewWith(progress.Options{Label: "steps", Out: &out, Terminal: true, Now: c.now})
	c.advance(2 * time.Second)
	p.Add(1)
	p.Set("lr", 0.01)
	if got, want := p.String(), "steps 1 2 s/it lr=0.01"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
