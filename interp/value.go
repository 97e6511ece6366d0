package interp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/viz/display"
	// The rich renderers of images, plots, tensors and tables register
	// with display when imported; the session imports them here so that
	// a cell's trailing expression and display.Value in cells use them.
	_ "github.com/gnnlab/gnnlab/viz/display/render"
)

// render turns the values of a cell's trailing expression into a bundle.
// A single value with a rich form (display.Rich: a display.Renderer, an
// image, a plot, a tensor, a table) shows that bundle; otherwise the
// text is each value formatted with %v (strings quoted with %q, so that
// "1" and 1 look different), separated by ", ".
func render(vals []any) display.Bundle {
	parts := make([]string, len(vals))
	for k, v := range vals {
		parts[k] = formatValue(v)
	}
	text := strings.Join(parts, ", ")
	if len(vals) == 1 {
		// Renderers, images, plots, tensors and tables (see value.go).
		b, ok, err := display.Rich(vals[0])
		if err != nil {
			// Never swallowed: the text form, and why the rich one failed.
			return display.Bundle{Data: map[string]any{"text/plain": text + "\n" + err.Error()}, Metadata: map[string]any{}}
		}
		if ok {
			return b
		}
	}
	return display.Bundle{Data: map[string]any{"text/plain": text}, Metadata: map[string]any{}}
}

func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v", v)
}
