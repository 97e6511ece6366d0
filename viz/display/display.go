package display

import (
	"fmt"
	"os"
	"sync"
)

// Bundle is one piece of rich output: MIME type to data (a string for text
// types, base64 text for images, any JSON value for application/json).
type Bundle struct {
	Data      map[string]any `json:"data"`
	Metadata  map[string]any `json:"metadata"`
	DisplayID string         `json:"display_id,omitempty"`
}

// Publisher receives display requests from cell code.
type Publisher interface {
	// Display shows b; when update is true it replaces the output shown
	// earlier under b.DisplayID instead.
	Display(b Bundle, update bool)
	// ClearOutput clears the cell's output; with wait the clearing waits
	// for the next output to arrive (no flicker).
	ClearOutput(wait bool)
}

var (
	mu  sync.RWMutex
	pub Publisher
)

// SetPublisher installs p as the destination of Show, Update and Clear.
// Hosts call it once at start; nil restores the text fallback.
func SetPublisher(p Publisher) {
	mu.Lock()
	pub = p
	mu.Unlock()
}

func current() Publisher {
	mu.RLock()
	defer mu.RUnlock()
	return pub
}

// Show displays b.
func Show(b Bundle) {
	if p := current(); p != nil {
		p.Display(b, false)
		return
	}
	fmt.Fprintln(os.Stdout, b.Text())
}

// Update replaces the output displayed earlier with the same DisplayID.
func Update(b Bundle) {
	if p := current(); p != nil {
		p.Display(b, true)
		return
	}
	fmt.Fprintln(os.Stdout, b.Text())
}

// Clear clears the output of the running cell; with wait, the clearing
// happens when the next output arrives.
func Clear(wait bool) {
	if p := current(); p != nil {
		p.ClearOutput(wait)
	}
}

// Text returns the bundle's text/plain representation, or a note naming
// its MIME types when it has none.
func (b Bundle) Text() string {
	if s, ok := b.Data["text/plain"].(string); ok {
		return s
	}
	kinds := ""
	for k := range b.Data {
		if kinds != "" {
			kinds += ", "
		}
		kinds += k
	}
	return "<" + kinds + ">"
}

// HTML displays an HTML fragment.
func HTML(html string) { Show(Bundle{Data: map[string]any{"text/html": html, "text/plain": html}}) }

// Markdown displays Markdown text.
func Markdown(md string) { Show(Bundle{Data: map[string]any{"text/markdown": md, "text/plain": md}}) }

// LaTeX displays a LaTeX fragment, e.g. "$$x^2$$".
func LaTeX(tex string) { Show(Bundle{Data: map[string]any{"text/latex": tex, "text/plain": tex}}) }

// HasPublisher reports whether a host installed a Publisher, that is,
// whether output goes to a notebook-like frontend rather than to plain
// standard output.
func HasPublisher() bool { return current() != nil }
