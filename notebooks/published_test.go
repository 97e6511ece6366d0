package notebooks_test

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/runner"
)

// sourceRE matches the source of a code cell in the HTML that gnnlab run
// --html writes (interp/runner's WriteHTML).
var sourceRE = regexp.MustCompile(`(?s)<pre class="source"><code>(.*?)</code></pre>`)

// A markdown cell of the HTML; its code spans; its MathML; and math left
// as TeX between dollars.
var (
	markdownRE = regexp.MustCompile(`(?s)<div class="cell markdown">(.*?)</div>\n`)
	codeRE     = regexp.MustCompile(`(?s)<code>.*?</code>`)
	mathRE     = regexp.MustCompile(`(?s)<math[ >].*?</math>`)
	rawMathRE  = regexp.MustCompile(`\$[^$]+\$`)
)

// TestPublishedHTML checks the executed HTML that make notebooks publishes
// in html/: one file for each notebook, whose code cells are the
// notebook's, in order and character for character, with as many
// markdown cells, no cell that failed, and no math left as TeX in a
// markdown cell (the runner writes it as MathML). Change a notebook and this test
// fails until make notebooks has run again.
func TestPublishedHTML(t *testing.T) {
	for _, nb := range notebooks {
		t.Run(strings.TrimSuffix(nb.file, ".ipynb"), func(t *testing.T) {
			name := filepath.Join("html", strings.TrimSuffix(nb.file, ".ipynb")+".html")
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("%v: the published HTML is missing; run make notebooks", err)
			}
			page := string(b)
			n, err := runner.ReadFile(nb.file)
			if err != nil {
				t.Fatal(err)
			}
			var code []string
			markdown := 0
			for _, c := range n.Cells {
				switch c.CellType {
				case "code":
					code = append(code, string(c.Source))
				case "markdown":
					markdown++
				}
			}
			var published []string
			for _, m := range sourceRE.FindAllStringSubmatch(page, -1) {
				published = append(published, html.UnescapeString(m[1]))
			}
			if len(published) != len(code) {
				t.Fatalf("%s has %d code cells, %s %d; run make notebooks", name, len(published), nb.file, len(code))
			}
			for i := range code {
				if published[i] != code[i] {
					t.Errorf("%s: code cell %d differs from %s's (%q); run make notebooks", name, i, nb.file, firstLineOf(code[i]))
					break
				}
			}
			if got := strings.Count(page, `<div class="cell markdown"`); got != markdown {
				t.Errorf("%s has %d markdown cells, %s %d; run make notebooks", name, got, nb.file, markdown)
			}
			if strings.Contains(page, `<pre class="error">`) {
				t.Errorf("%s shows a cell that failed", name)
			}
			for _, m := range markdownRE.FindAllStringSubmatch(page, -1) {
				text := codeRE.ReplaceAllString(mathRE.ReplaceAllString(m[1], ""), "")
				if raw := rawMathRE.FindString(text); raw != "" {
					t.Errorf("%s shows math as TeX, not MathML: %q", name, raw)
					break
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join("html", "MADE.txt")); err != nil {
		t.Errorf("html/MADE.txt (the commit and machine the HTML was made on): %v", err)
	}
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
