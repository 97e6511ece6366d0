package runner

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestMathML(t *testing.T) {
	tests := []struct {
		tex, want string
	}{
		{`x^2`, `<msup><mi>x</mi><mn>2</mn></msup>`},
		{`h_u^{(l)}`, `<msubsup><mi>h</mi><mi>u</mi><mrow><mo stretchy="false">(</mo><mi>l</mi><mo stretchy="false">)</mo></mrow></msubsup>`},
		{`\frac{a}{b}`, `<mfrac><mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow></mfrac>`},
		{`\tfrac14`, `<mstyle displaystyle="false"><mfrac><mn>1</mn><mn>4</mn></mfrac></mstyle>`},
		{`\sum_{v} x`, `<munder><mo largeop="true" movablelimits="true">∑</mo><mrow><mi>v</mi></mrow></munder><mi>x</mi>`},
		{`\hat{A}`, `<mover accent="true"><mrow><mi>A</mi></mrow><mo>^</mo></mover>`},
		{`\mathcal{N}(u)`, `<mi>𝒩</mi><mo stretchy="false">(</mo><mi>u</mi><mo stretchy="false">)</mo>`},
		{`\mathbb{1}`, `<mi>𝟙</mi>`},
		{`a_\text{src}`, `<msub><mi>a</mi><mtext>src</mtext></msub>`},
		{`\sigma'(z)`, `<msup><mi>σ</mi><mo>′</mo></msup><mo stretchy="false">(</mo><mi>z</mi><mo stretchy="false">)</mo>`},
		{`\left( x \right)`, `<mrow><mo fence="true" stretchy="true">(</mo><mi>x</mi><mo fence="true" stretchy="true">)</mo></mrow>`},
		{`a < b`, `<mi>a</mi><mo>&lt;</mo><mi>b</mi>`},
		{`3.14`, `<mn>3.14</mn>`},
		{`\text{if } x - 1`, "<mtext>if\u00a0</mtext><mi>x</mi><mo>−</mo><mn>1</mn>"},
		{`\mathrm{LeakyReLU}`, `<mi>LeakyReLU</mi>`},
		{`\begin{cases} 1 & a \\ 0 & b \end{cases}`, `<mrow><mo fence="true" stretchy="true">{</mo><mtable columnalign="left"><mtr><mtd style="text-align:left"><mn>1</mn></mtd><mtd style="text-align:left"><mi>a</mi></mtd></mtr><mtr><mtd style="text-align:left"><mn>0</mn></mtd><mtd style="text-align:left"><mi>b</mi></mtd></mtr></mtable></mrow>`},
	}
	for _, tt := range tests {
		got, err := MathML(tt.tex, false)
		if err != nil {
			t.Errorf("MathML(%q) error %v", tt.tex, err)
			continue
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(got, "<math><semantics><mrow>"), "</mrow><annotation encoding=\"application/x-tex\">"+htmlEscape(tt.tex)+"</annotation></semantics></math>")
		if inner != tt.want {
			t.Errorf("MathML(%q) = %s, want %s", tt.tex, inner, tt.want)
		}
	}
	for _, bad := range []string{`\frac{a}`, `x^`, `\nosuchcommand`, `{x`, `x}`, `\left( x`, `\begin{cases} 1 \end{matrix}`} {
		if got, err := MathML(bad, false); err == nil {
			t.Errorf("MathML(%q) = %s, want an error", bad, got)
		}
	}
	if got, _ := MathML(`x`, true); !strings.HasPrefix(got, `<math display="block">`) {
		t.Errorf("MathML(x, display) = %s, want a block", got)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// Every formula of the teaching notebooks converts: the published HTML
// shows none of them as TeX.
func TestMathMLNotebooks(t *testing.T) {
	files, err := filepath.Glob("../../notebooks/*.ipynb")
	if err != nil || len(files) == 0 {
		t.Fatalf("notebooks: %v, %d files", err, len(files))
	}
	n := 0
	for _, f := range files {
		nb, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range nb.Cells {
			if c.CellType != "markdown" {
				continue
			}
			for _, code := range regexp.MustCompile("`[^`]+`").Split(string(c.Source), -1) {
				for _, m := range mdMath.FindAllStringSubmatch(strings.ReplaceAll(code, "\n", " "), -1) {
					tex, display := m[2], m[1] != ""
					if display {
						tex = m[1]
					}
					n++
					if _, err := MathML(tex, display); err != nil {
						t.Errorf("%s: %v", filepath.Base(f), err)
					}
				}
			}
		}
	}
	t.Logf("%d formulas", n)
}
