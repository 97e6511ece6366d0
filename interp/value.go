package interp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/viz/display"
)

// render turns the values of a cell's trailing expression into a bundle.
// A single display.Renderer shows its own bundle; otherwise the text is
// each value formatted with %v (strings quoted with %q, so that "1" and 1
// look different), separated by ", ".
func render(vals []any) display.Bundle {
	if len(vals) == 1 {
		if r, ok := vals[0].(display.Renderer); ok {
			b := r.Render()
			if b.Data == nil {
				b.Data = map[string]any{}
			}
			if _, ok := b.Data["text/plain"]; !ok {
				b.Data["text/plain"] = b.Text()
			}
			return b
		}
	}
	parts := make([]string, len(vals))
	for k, v := range vals {
		parts[k] = formatValue(v)
	}
	return display.Bundle{Data: map[string]any{"text/plain": strings.Join(parts, ", ")}, Metadata: map[string]any{}}
}

func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%v", v)
}
