package runner

import (
	"fmt"
	"html"
	"io"
	"regexp"
	"sort"
	"strings"
)

// WriteHTML writes nb as a static, self-contained HTML page titled title.
func WriteHTML(w io.Writer, nb *Notebook, title string) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
.cell{margin:1rem 0}
.prompt{color:#307fc1;font-family:monospace;font-size:.85em}
pre{background:#f7f7f7;padding:.5rem;overflow-x:auto;margin:.2rem 0}
pre.stderr{background:#fdd}
pre.error{background:#fdd;color:#a00}
.output img{max-width:100%%}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.1rem .4rem}
</style></head><body>
`, html.EscapeString(title))
	for _, c := range nb.Cells {
		switch c.CellType {
		case "markdown":
			b.WriteString(`<div class="cell markdown">` + Markdown(string(c.Source)) + "</div>\n")
		case "raw":
			b.WriteString(`<div class="cell raw"><pre>` + html.EscapeString(string(c.Source)) + "</pre></div>\n")
		case "code":
			n := " "
			if c.ExecutionCount != nil {
				n = fmt.Sprint(*c.ExecutionCount)
			}
			fmt.Fprintf(&b, "<div class=\"cell code\"><div class=\"prompt\">In [%s]:</div><pre class=\"source\"><code>%s</code></pre>\n", n, html.EscapeString(string(c.Source)))
			for _, o := range c.Outputs {
				b.WriteString(`<div class="output">` + outputHTML(o) + "</div>\n")
			}
			b.WriteString("</div>\n")
		}
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// outputHTML renders the richest MIME type of an output that a static
// page can show.
func outputHTML(o *Output) string {
	switch o.OutputType {
	case "stream":
		return `<pre class="` + o.Name + `">` + html.EscapeString(string(o.Text)) + "</pre>"
	case "error":
		return `<pre class="error">` + html.EscapeString(o.Ename+": "+o.Evalue+"\n"+strings.Join(o.Traceback, "\n")) + "</pre>"
	}
	str := func(mime string) (string, bool) {
		switch v := o.Data[mime].(type) {
		case string:
			return v, true
		case []any: // a list of lines, as some writers store text
			var b strings.Builder
			for _, l := range v {
				fmt.Fprint(&b, l)
			}
			return b.String(), true
		}
		return "", false
	}
	alt := ""
	if t, ok := str("text/plain"); ok {
		alt = html.EscapeString(t)
	}
	for _, mime := range []string{"image/png", "image/jpeg", "image/gif"} {
		if data, ok := str(mime); ok {
			size := ""
			if m, ok := o.Metadata[mime].(map[string]any); ok {
				if w, ok := m["width"].(float64); ok {
					size += fmt.Sprintf(` width="%d"`, int(w))
				}
				if h, ok := m["height"].(float64); ok {
					size += fmt.Sprintf(` height="%d"`, int(h))
				}
			}
			return fmt.Sprintf(`<img src="data:%s;base64,%s" alt="%s"%s>`, mime, strings.ReplaceAll(data, "\n", ""), alt, size)
		}
	}
	if s, ok := str("image/svg+xml"); ok {
		return s
	}
	if s, ok := str("text/html"); ok {
		return s
	}
	if s, ok := str("text/markdown"); ok {
		return Markdown(s)
	}
	if s, ok := str("text/plain"); ok {
		return "<pre>" + html.EscapeString(s) + "</pre>"
	}
	var kinds []string
	for k := range o.Data {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return "<pre>" + html.EscapeString("<"+strings.Join(kinds, ", ")+">") + "</pre>"
}

var (
	mdCode   = regexp.MustCompile("`([^`]+)`")
	mdBold   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdItalic = regexp.MustCompile(`\*([^*]+)\*|\b_([^_]+)_\b`)
	mdLink   = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	mdList   = regexp.MustCompile(`^\s*([-*+]|\d+\.)\s+`)
)

// Markdown renders a subset of Markdown: ATX headings, paragraphs, fenced
// code, bullet and numbered lists, inline code, bold, italic and links.
func Markdown(src string) string {
	var b strings.Builder
	lines := strings.Split(src, "\n")
	var para []string
	list := ""
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	endList := func() {
		if list != "" {
			b.WriteString("</" + list + ">\n")
			list = ""
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			flush()
			endList()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
		case strings.HasPrefix(t, "#"):
			flush()
			endList()
			level := len(t) - len(strings.TrimLeft(t, "#"))
			level = min(level, 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, inline(strings.TrimSpace(strings.TrimLeft(t, "#"))), level)
		case mdList.MatchString(l):
			flush()
			kind := "ul"
			if m := mdList.FindStringSubmatch(l); m[1][0] >= '0' && m[1][0] <= '9' {
				kind = "ol"
			}
			if list != kind {
				endList()
				b.WriteString("<" + kind + ">\n")
				list = kind
			}
			b.WriteString("<li>" + inline(mdList.ReplaceAllString(l, "")) + "</li>\n")
		case t == "":
			flush()
			endList()
		default:
			endList()
			para = append(para, t)
		}
	}
	flush()
	endList()
	return b.String()
}

// mdMath matches display ($$…$$) and inline ($…$) math.
var mdMath = regexp.MustCompile(`\$\$(.+?)\$\$|\$([^$]+)\$`)

// inline escapes text and renders code spans, math, bold, italic and
// links; code spans and then math are cut out first so that their text
// stays literal. Math becomes MathML (MathML); a formula it cannot
// read stays as TeX between its dollars.
func inline(s string) string {
	parts := mdCode.Split(s, -1)
	codes := mdCode.FindAllStringSubmatch(s, -1)
	var b strings.Builder
	for k, p := range parts {
		texts := mdMath.Split(p, -1)
		maths := mdMath.FindAllStringSubmatch(p, -1)
		for j, t := range texts {
			t = html.EscapeString(t)
			t = mdLink.ReplaceAllString(t, `<a href="$2">$1</a>`)
			t = mdBold.ReplaceAllString(t, "<strong>$1</strong>")
			t = mdItalic.ReplaceAllString(t, "<em>$1$2</em>")
			b.WriteString(t)
			if j < len(maths) {
				tex, display := maths[j][2], maths[j][1] != ""
				if display {
					tex = maths[j][1]
				}
				if ml, err := MathML(tex, display); err == nil {
					b.WriteString(ml)
				} else {
					b.WriteString(html.EscapeString(maths[j][0]))
				}
			}
		}
		if k < len(codes) {
			b.WriteString("<code>" + html.EscapeString(codes[k][1]) + "</code>")
		}
	}
	return b.String()
}
