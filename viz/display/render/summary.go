package render

import (
	"fmt"
	"html"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/viz/display"
)

// modelSummary renders a model summary as an HTML table of its layers,
// with the summary's text table as text/plain.
func modelSummary(s *nn.ModelSummary) display.Bundle {
	var b strings.Builder
	caption := s.Model
	if s.Input != nil {
		caption += fmt.Sprintf(" on input %v", s.Input)
	}
	fmt.Fprintf(&b, "<table><caption>%s</caption><tr><th>layer</th><th>type</th><th>output</th><th>parameter shapes</th><th>params</th></tr>", html.EscapeString(caption))
	for _, r := range s.Rows {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td style=\"text-align:right\">%d</td></tr>",
			html.EscapeString(r.Name), html.EscapeString(r.Layer), r.OutputString(), r.ParamShapeString(), r.Params)
	}
	b.WriteString("<tr><th colspan=\"4\" style=\"text-align:left\">total parameters")
	if s.Output != nil {
		fmt.Fprintf(&b, " (output %v)", s.Output)
	}
	fmt.Fprintf(&b, "</th><th style=\"text-align:right\">%d</th></tr></table>", s.Params)
	return display.Bundle{Data: map[string]any{"text/html": b.String(), "text/plain": s.String()}}
}
