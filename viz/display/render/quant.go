package render

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/quant"
	"github.com/gnnlab/gnnlab/viz/display"
)

// quantReport renders a quantization report as an HTML table, with the
// report's text table as the text/plain form.
func quantReport(r *quant.Report) display.Bundle {
	var b strings.Builder
	fmt.Fprintf(&b, "<table><caption>%s</caption><tr><th>variant</th><th>accuracy</th><th>parameter bytes</th><th>smaller</th><th>inference time</th></tr>", html.EscapeString(r.Model))
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%.2f%%</td><td>%d</td><td>%.2f×</td><td>%s</td></tr>",
			html.EscapeString(row.Variant), 100*row.Accuracy, row.Bytes, r.Smaller(row), row.Time.Round(time.Microsecond))
	}
	b.WriteString("</table>")
	return display.Bundle{Data: map[string]any{"text/html": b.String(), "text/plain": r.String()}}
}
