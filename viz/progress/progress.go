package progress

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/viz/display"
)

// Interval is the default shortest time between two drawings.
const Interval = 100 * time.Millisecond

// Options configure a Bar made by NewWith.
type Options struct {
	// Total is the number of steps; 0 means unknown (no bar, no ETA).
	Total int
	// Label names the steps, e.g. "epochs".
	Label string
	// Out is where the terminal bar goes; nil means os.Stderr. It is
	// unused when a display publisher is installed, unless Terminal is
	// set.
	Out io.Writer
	// Terminal forces the one-line terminal bar.
	Terminal bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Interval is the shortest time between two drawings; 0 means
	// Interval (the package constant).
	Interval time.Duration
	// Width is the terminal bar's width in characters; 0 means 30.
	Width int
}

// Bar is one progress display. Its methods are safe for concurrent use.
type Bar struct {
	opts   Options
	handle *display.Handle // nil in terminal mode

	mu       sync.Mutex
	start    time.Time
	last     time.Time // last drawing
	drawn    bool
	n        int
	names    []string // field names in order of first use
	fields   map[string]any
	done     bool
	lastLine int // length of the last terminal line, to blank it
}

// New returns a bar of total steps named label, drawn where display
// output goes.
func New(total int, label string) *Bar {
	return NewWith(Options{Total: total, Label: label})
}

// NewWith returns a bar configured by opts.
func NewWith(opts Options) *Bar {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Out == nil {
		opts.Out = os.Stderr
	}
	if opts.Interval == 0 {
		opts.Interval = Interval
	}
	if opts.Width == 0 {
		opts.Width = 30
	}
	b := &Bar{opts: opts, fields: map[string]any{}, start: opts.Now()}
	if !opts.Terminal && display.HasPublisher() {
		b.handle = display.NewHandle()
	}
	return b
}

// Update sets the number of steps done to n and the named fields (pairs
// of a name and a value: "loss", 0.31, "acc", 0.9), and draws the bar
// unless it was drawn less than Interval ago.
func (b *Bar) Update(n int, fields ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n = n
	b.setLocked(fields)
	b.drawLocked(false)
}

// Add advances the bar by k steps.
func (b *Bar) Add(k int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += k
	b.drawLocked(false)
}

// Set sets one field without advancing; it shows at the next drawing.
func (b *Bar) Set(name string, value any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.setLocked([]any{name, value})
}

func (b *Bar) setLocked(kv []any) {
	for i := 0; i+1 < len(kv); i += 2 {
		name := fmt.Sprint(kv[i])
		if _, ok := b.fields[name]; !ok {
			b.names = append(b.names, name)
		}
		b.fields[name] = kv[i+1]
	}
	if len(kv)%2 == 1 {
		name := fmt.Sprint(kv[len(kv)-1])
		if _, ok := b.fields[name]; !ok {
			b.names = append(b.names, name)
		}
		b.fields[name] = "?"
	}
}

// Done draws the final state (always) and ends the terminal line.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	b.drawLocked(true)
	if b.handle == nil {
		fmt.Fprintln(b.opts.Out)
	}
}

// String returns the bar's current text line.
func (b *Bar) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.textLocked(b.opts.Now(), true)
}

func (b *Bar) drawLocked(force bool) {
	now := b.opts.Now()
	if !force && b.drawn && now.Sub(b.last) < b.opts.Interval {
		return
	}
	if b.done && !force {
		return
	}
	text := b.textLocked(now, b.handle == nil)
	if b.handle != nil {
		bundle := display.HTMLBundle(b.htmlLocked(text), text)
		if !b.drawn {
			b.handle.Show(bundle)
		} else {
			b.handle.Update(bundle)
		}
	} else {
		line := "\r" + text
		if pad := b.lastLine - len(text); pad > 0 {
			line += strings.Repeat(" ", pad)
		}
		b.lastLine = len(text)
		fmt.Fprint(b.opts.Out, line)
	}
	b.drawn, b.last = true, now
}

// textLocked formats "label  n/total [====>   ]  37% 12.3 it/s ETA 0:05 loss=0.31".
func (b *Bar) textLocked(now time.Time, bar bool) string {
	var s strings.Builder
	if b.opts.Label != "" {
		s.WriteString(b.opts.Label)
		s.WriteString(" ")
	}
	elapsed := now.Sub(b.start).Seconds()
	if b.opts.Total > 0 {
		frac := float64(b.n) / float64(b.opts.Total)
		frac = min(max(frac, 0), 1)
		fmt.Fprintf(&s, "%d/%d", b.n, b.opts.Total)
		if bar {
			w := b.opts.Width
			full := int(frac * float64(w))
			s.WriteString(" [")
			s.WriteString(strings.Repeat("=", full))
			if full < w {
				s.WriteString(">")
				s.WriteString(strings.Repeat(" ", w-full-1))
			}
			s.WriteString("]")
		}
		fmt.Fprintf(&s, " %3.0f%%", frac*100)
	} else {
		fmt.Fprintf(&s, "%d", b.n)
	}
	if elapsed > 0 && b.n > 0 {
		rate := float64(b.n) / elapsed
		fmt.Fprintf(&s, " %s", formatRate(rate))
		if b.opts.Total > 0 && b.n < b.opts.Total {
			fmt.Fprintf(&s, " ETA %s", formatDuration(float64(b.opts.Total-b.n)/rate))
		}
	}
	if b.done || (b.opts.Total > 0 && b.n >= b.opts.Total) {
		fmt.Fprintf(&s, " in %s", formatDuration(elapsed))
	}
	for _, name := range b.names {
		fmt.Fprintf(&s, " %s=%s", name, formatField(b.fields[name]))
	}
	return s.String()
}

func (b *Bar) htmlLocked(text string) string {
	total := b.opts.Total
	if total <= 0 {
		return fmt.Sprintf("<div class=\"gnnlab-progress\"><progress style=\"width:20em\"></progress> <code>%s</code></div>", html.EscapeString(text))
	}
	return fmt.Sprintf("<div class=\"gnnlab-progress\"><progress value=\"%d\" max=\"%d\" style=\"width:20em\"></progress> <code>%s</code></div>",
		min(total, b.n), total, html.EscapeString(text))
}

func formatRate(r float64) string {
	switch {
	case r >= 1:
		return fmt.Sprintf("%.3g it/s", r)
	case r > 0:
		return fmt.Sprintf("%.3g s/it", 1/r)
	}
	return ""
}

// formatDuration writes seconds as m:ss, or h:mm:ss from an hour on.
func formatDuration(sec float64) string {
	t := int(sec + 0.5)
	if t >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", t/3600, t/60%60, t%60)
	}
	return fmt.Sprintf("%d:%02d", t/60, t%60)
}

func formatField(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("%.4g", x)
	case float32:
		return fmt.Sprintf("%.4g", x)
	}
	return fmt.Sprint(v)
}
