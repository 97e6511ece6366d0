package runner

import (
	"fmt"
	"html"
	"strings"
	"unicode"
)

// MathML converts a TeX formula (the text between $ or $$ of a Markdown
// cell) to MathML, which browsers render without a script or a font
// download, so that the published HTML shows formulas offline. It knows
// the subset of LaTeX's math mode that notebooks use: letters, numbers
// and operators; ^ and _; \frac, \tfrac, \dfrac, \sqrt; Greek letters and
// the common symbols; \hat, \tilde, \bar and other accents; \mathcal,
// \mathbb, \mathbf, \mathrm, \text, \operatorname; \left…\right and
// \big delimiters; \underbrace; spaces; the matrix, cases and aligned
// environments. What it does not know comes back as an error naming the
// first command it could not read, and the formula is shown as TeX.
func MathML(tex string, display bool) (string, error) {
	p := &texParser{src: []rune(tex), toks: tokenize(tex)}
	body := p.row(stopEnd)
	if p.err == nil && p.pos < len(p.toks) {
		p.fail("unexpected %q", p.toks[p.pos].text)
	}
	if p.err != nil {
		return "", fmt.Errorf("runner: math %q: %w", tex, p.err)
	}
	mode := ""
	if display {
		mode = ` display="block"`
	}
	return `<math` + mode + `><semantics><mrow>` + body + `</mrow><annotation encoding="application/x-tex">` + html.EscapeString(tex) + `</annotation></semantics></math>`, nil
}

type tokKind int

const (
	tCmd   tokKind = iota // \name or \c
	tOpen                 // {
	tClose                // }
	tSup                  // ^
	tSub                  // _
	tAmp                  // &
	tNum                  // digits with an optional decimal point
	tLetter
	tOther // any other character
)

type tok struct {
	kind     tokKind
	text     string
	from, to int // the token's runes in the source
}

func tokenize(s string) []tok {
	var out []tok
	rs := []rune(s)
	add := func(k tokKind, from, to int) { out = append(out, tok{k, string(rs[from:to]), from, to}) }
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
		case r == '\\':
			j := i + 1
			for j < len(rs) && isASCIILetter(rs[j]) {
				j++
			}
			if j == i+1 && j < len(rs) {
				j++ // a one-character command: \, \; \{ \\ ...
			}
			out = append(out, tok{tCmd, string(rs[i+1 : j]), i, j})
			i = j - 1
		case r == '{':
			add(tOpen, i, i+1)
		case r == '}':
			add(tClose, i, i+1)
		case r == '^':
			add(tSup, i, i+1)
		case r == '_':
			add(tSub, i, i+1)
		case r == '&':
			add(tAmp, i, i+1)
		case r >= '0' && r <= '9':
			j := i
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == '.' && j+1 < len(rs) && rs[j+1] >= '0' && rs[j+1] <= '9') {
				j++
			}
			add(tNum, i, j)
			i = j - 1
		case unicode.IsLetter(r):
			add(tLetter, i, i+1)
		default:
			add(tOther, i, i+1)
		}
	}
	return out
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// stop says where a row ends.
type stop int

const (
	stopEnd   stop = iota // the end of the formula
	stopBrace             // a closing brace
	stopRight             // \right
	stopCell              // & or \\ or \end (inside an environment)
)

type texParser struct {
	src  []rune
	toks []tok
	pos  int
	err  error
}

func (p *texParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *texParser) peek() (tok, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return tok{}, false
}

// row parses atoms with their scripts until stop.
func (p *texParser) row(until stop) string {
	var b strings.Builder
	for p.err == nil {
		t, ok := p.peek()
		if !ok {
			if until != stopEnd {
				p.fail("missing closing brace, \\right or \\end")
			}
			break
		}
		if t.kind == tClose {
			if until == stopBrace {
				break
			}
			p.fail("unbalanced }")
			break
		}
		if t.kind == tCmd && t.text == "right" {
			if until != stopRight {
				p.fail("\\right without \\left")
			}
			break
		}
		if until == stopCell && (t.kind == tAmp || t.kind == tCmd && (t.text == `\` || t.text == "end")) {
			break
		}
		if t.kind == tCmd && (t.text == "textstyle" || t.text == "displaystyle") {
			p.pos++
			rest := p.row(until)
			fmt.Fprintf(&b, `<mstyle displaystyle="%v">%s</mstyle>`, t.text == "displaystyle", rest)
			break
		}
		b.WriteString(p.scripted())
	}
	return b.String()
}

// atom is one parsed element: its MathML and whether scripts go under
// and over it (big operators, \underbrace, \min).
type atom struct {
	ml     string
	limits bool
}

// scripted parses an atom and the ^, _ and primes after it.
func (p *texParser) scripted() string {
	base := p.atom()
	var sub, sup string
	primes := 0
	for p.err == nil {
		t, ok := p.peek()
		if !ok {
			break
		}
		switch {
		case t.kind == tSub && sub == "":
			p.pos++
			sub = p.argument()
			continue
		case t.kind == tSup && sup == "":
			p.pos++
			sup = p.argument()
			continue
		case t.kind == tOther && t.text == "'":
			p.pos++
			primes++
			continue
		}
		break
	}
	if primes > 0 {
		sup = strings.Repeat("<mo>′</mo>", primes) + sup
		if primes > 1 || sup != "<mo>′</mo>" {
			sup = "<mrow>" + sup + "</mrow>"
		}
	}
	under, over := "msub", "msup"
	both := "msubsup"
	if base.limits {
		under, over, both = "munder", "mover", "munderover"
	}
	switch {
	case sub != "" && sup != "":
		return fmt.Sprintf("<%s>%s%s%s</%s>", both, base.ml, sub, sup, both)
	case sub != "":
		return fmt.Sprintf("<%s>%s%s</%s>", under, base.ml, sub, under)
	case sup != "":
		return fmt.Sprintf("<%s>%s%s</%s>", over, base.ml, sup, over)
	}
	return base.ml
}

// argument parses a command's or a script's argument: a group in braces,
// or one token (one digit of a number, as TeX takes \tfrac14).
func (p *texParser) argument() string {
	t, ok := p.peek()
	if !ok {
		p.fail("missing argument")
		return ""
	}
	if t.kind == tNum && len(t.text) > 1 {
		p.toks[p.pos].text = t.text[1:]
		return "<mn>" + t.text[:1] + "</mn>"
	}
	if t.kind == tOpen {
		p.pos++
		inner := p.row(stopBrace)
		p.pos++ // the }
		return "<mrow>" + inner + "</mrow>"
	}
	return p.atom().ml
}

// rawGroup returns the text of a {…} group as written, for \text and
// environment names.
func (p *texParser) rawGroup() string {
	t, ok := p.peek()
	if !ok || t.kind != tOpen {
		if ok {
			p.pos++
			return t.text
		}
		p.fail("missing {")
		return ""
	}
	from := t.to
	p.pos++
	depth := 0
	for ; p.pos < len(p.toks); p.pos++ {
		t := p.toks[p.pos]
		switch t.kind {
		case tOpen:
			depth++
		case tClose:
			if depth == 0 {
				p.pos++
				return string(p.src[from:t.from])
			}
			depth--
		}
	}
	p.fail("missing }")
	return ""
}

func (p *texParser) atom() atom {
	t, ok := p.peek()
	if !ok {
		p.fail("missing argument")
		return atom{}
	}
	p.pos++
	switch t.kind {
	case tNum:
		return atom{ml: "<mn>" + t.text + "</mn>"}
	case tLetter:
		return atom{ml: "<mi>" + html.EscapeString(t.text) + "</mi>"}
	case tOpen:
		inner := p.row(stopBrace)
		p.pos++
		return atom{ml: "<mrow>" + inner + "</mrow>"}
	case tSub, tSup:
		p.fail("%s with nothing before it", t.text)
		return atom{}
	case tOther:
		if strings.Contains("()[]|", t.text) {
			// As in TeX, a bare delimiter keeps its size; browsers
			// stretch fences to the row's height unless told not to.
			return atom{ml: `<mo stretchy="false">` + t.text + "</mo>"}
		}
		if t.text == "-" {
			return atom{ml: mo("−")} // TeX's minus sign, not a hyphen
		}
		return atom{ml: mo(t.text)}
	case tCmd:
		return p.command(t.text)
	}
	p.fail("unexpected %q", t.text)
	return atom{}
}

func mo(s string) string { return "<mo>" + html.EscapeString(s) + "</mo>" }

func (p *texParser) command(name string) atom {
	if s, ok := texIdent[name]; ok {
		return atom{ml: "<mi>" + s + "</mi>"}
	}
	if s, ok := texOp[name]; ok {
		if _, isDelim := texDelim[name]; isDelim {
			return atom{ml: `<mo stretchy="false">` + s + "</mo>"}
		}
		return atom{ml: mo(s)}
	}
	if s, ok := texBigOp[name]; ok {
		return atom{ml: `<mo largeop="true" movablelimits="true">` + s + "</mo>", limits: true}
	}
	if w, ok := texSpace[name]; ok {
		return atom{ml: `<mspace width="` + w + `"></mspace>`}
	}
	if texFunc[name] {
		return atom{ml: "<mi>" + name + "</mi>"}
	}
	if texLimitFunc[name] {
		return atom{ml: `<mo movablelimits="true" form="prefix">` + name + "</mo>", limits: true}
	}
	if a, ok := texAccent[name]; ok {
		return atom{ml: `<mover accent="true">` + p.argument() + "<mo>" + a + "</mo></mover>"}
	}
	switch name {
	case "frac", "tfrac", "dfrac":
		num := p.argument()
		den := p.argument()
		f := "<mfrac>" + num + den + "</mfrac>"
		switch name {
		case "tfrac":
			f = `<mstyle displaystyle="false">` + f + "</mstyle>"
		case "dfrac":
			f = `<mstyle displaystyle="true">` + f + "</mstyle>"
		}
		return atom{ml: f}
	case "sqrt":
		if t, ok := p.peek(); ok && t.kind == tOther && t.text == "[" {
			p.pos++
			var idx strings.Builder
			for t, ok := p.peek(); ok && !(t.kind == tOther && t.text == "]") && p.err == nil; t, ok = p.peek() {
				idx.WriteString(p.scripted())
			}
			p.pos++
			return atom{ml: "<mroot>" + p.argument() + "<mrow>" + idx.String() + "</mrow></mroot>"}
		}
		return atom{ml: "<msqrt>" + p.argument() + "</msqrt>"}
	case "mathcal", "mathbb", "mathbf", "mathrm", "operatorname":
		return atom{ml: p.alphabet(name)}
	case "text", "textrm", "mbox":
		// Spaces at the ends of an mtext are dropped when drawn; TeX
		// keeps them (\text{if }): make them no-break spaces.
		text := strings.ReplaceAll(p.rawGroup(), `\ `, " ")
		trimmed := strings.Trim(text, " ")
		lead := len(text) - len(strings.TrimLeft(text, " "))
		trail := len(text) - len(strings.TrimRight(text, " "))
		if trimmed == "" {
			lead, trail = len(text), 0
		}
		text = strings.Repeat("\u00a0", lead) + trimmed + strings.Repeat("\u00a0", trail)
		return atom{ml: "<mtext>" + html.EscapeString(text) + "</mtext>"}
	case "left":
		open := p.delimiter()
		inner := p.row(stopRight)
		p.pos++ // \right
		closing := p.delimiter()
		return atom{ml: "<mrow>" + fence(open) + inner + fence(closing) + "</mrow>"}
	case "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr":
		size := map[byte]string{'b': "1.2em", 'B': "1.8em"}[name[0]]
		if strings.HasPrefix(name, "bigg") || strings.HasPrefix(name, "Bigg") {
			size = "2.4em"
		}
		d := p.delimiter()
		return atom{ml: `<mo stretchy="true" symmetric="true" minsize="` + size + `" maxsize="` + size + `">` + html.EscapeString(d) + "</mo>"}
	case "underbrace", "overbrace":
		arg := p.argument()
		if name == "underbrace" {
			return atom{ml: "<munder>" + arg + `<mo stretchy="true">⏟</mo></munder>`, limits: true}
		}
		return atom{ml: "<mover>" + arg + `<mo stretchy="true">⏞</mo></mover>`, limits: true}
	case "begin":
		return atom{ml: p.environment(p.rawGroup())}
	case "{", "}", "|":
		return atom{ml: `<mo stretchy="false">` + texDelim[name] + "</mo>"}
	case "#", "%", "$", "_":
		return atom{ml: mo(name)}
	}
	p.fail("unknown command \\%s", name)
	return atom{}
}

// delimiter reads the delimiter after \left, \right or \big.
func (p *texParser) delimiter() string {
	t, ok := p.peek()
	if !ok {
		p.fail("missing delimiter")
		return ""
	}
	p.pos++
	if t.kind == tOther {
		if t.text == "." {
			return ""
		}
		return t.text
	}
	if t.kind == tCmd {
		if s, ok := texDelim[t.text]; ok {
			return s
		}
	}
	p.fail("unknown delimiter %q", t.text)
	return ""
}

func fence(d string) string {
	if d == "" {
		return ""
	}
	return `<mo fence="true" stretchy="true">` + html.EscapeString(d) + "</mo>"
}

// environment parses the body of \begin{name} up to \end{name}.
func (p *texParser) environment(name string) string {
	var rows [][]string
	cells := []string{}
	for p.err == nil {
		cells = append(cells, p.row(stopCell))
		t, ok := p.peek()
		if !ok {
			p.fail("missing \\end{%s}", name)
			break
		}
		p.pos++
		if t.kind == tAmp {
			continue
		}
		rows = append(rows, cells)
		cells = []string{}
		if t.text == "end" {
			if end := p.rawGroup(); end != name {
				p.fail("\\begin{%s} ended by \\end{%s}", name, end)
			}
			break
		}
	}
	align := "center"
	if name == "cases" || name == "aligned" || name == "align" || name == "align*" {
		align = "left"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<mtable columnalign="%s">`, align)
	for _, r := range rows {
		if len(r) == 1 && r[0] == "" {
			continue // a trailing \\
		}
		b.WriteString("<mtr>")
		for _, c := range r {
			if align == "left" {
				// MathML Core has no columnalign: CSS aligns the cells.
				b.WriteString(`<mtd style="text-align:left">` + c + "</mtd>")
				continue
			}
			b.WriteString("<mtd>" + c + "</mtd>")
		}
		b.WriteString("</mtr>")
	}
	b.WriteString("</mtable>")
	table := b.String()
	switch name {
	case "cases":
		return "<mrow>" + fence("{") + table + "</mrow>"
	case "pmatrix":
		return "<mrow>" + fence("(") + table + fence(")") + "</mrow>"
	case "bmatrix":
		return "<mrow>" + fence("[") + table + fence("]") + "</mrow>"
	case "vmatrix":
		return "<mrow>" + fence("|") + table + fence("|") + "</mrow>"
	case "matrix", "aligned", "align", "align*", "array":
		return table
	}
	p.fail("unknown environment %s", name)
	return ""
}

// alphabet renders \mathcal{…} and its kin: the letters of the argument
// in that alphabet (Unicode's mathematical letters).
func (p *texParser) alphabet(name string) string {
	text := p.rawGroup()
	if name == "operatorname" {
		return "<mi>" + html.EscapeString(text) + "</mi>"
	}
	if name == "mathrm" {
		if len([]rune(text)) == 1 {
			return `<mi mathvariant="normal">` + html.EscapeString(text) + "</mi>"
		}
		return "<mi>" + html.EscapeString(text) + "</mi>"
	}
	var b strings.Builder
	for _, r := range text {
		b.WriteRune(styled(name, r))
	}
	return "<mi>" + html.EscapeString(b.String()) + "</mi>"
}

// styled maps r to its letter in a mathematical alphabet.
func styled(alphabet string, r rune) rune {
	switch alphabet {
	case "mathcal":
		if s, ok := map[rune]rune{'B': 'ℬ', 'E': 'ℰ', 'F': 'ℱ', 'H': 'ℋ', 'I': 'ℐ', 'L': 'ℒ', 'M': 'ℳ', 'R': 'ℛ'}[r]; ok {
			return s
		}
		if r >= 'A' && r <= 'Z' {
			return 0x1D49C + (r - 'A')
		}
	case "mathbb":
		if s, ok := map[rune]rune{'C': 'ℂ', 'H': 'ℍ', 'N': 'ℕ', 'P': 'ℙ', 'Q': 'ℚ', 'R': 'ℝ', 'Z': 'ℤ'}[r]; ok {
			return s
		}
		switch {
		case r >= 'A' && r <= 'Z':
			return 0x1D538 + (r - 'A')
		case r >= '0' && r <= '9':
			return 0x1D7D8 + (r - '0')
		}
	case "mathbf":
		switch {
		case r >= 'A' && r <= 'Z':
			return 0x1D400 + (r - 'A')
		case r >= 'a' && r <= 'z':
			return 0x1D41A + (r - 'a')
		case r >= '0' && r <= '9':
			return 0x1D7CE + (r - '0')
		}
	}
	return r
}

var texIdent = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
	"zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ",
	"mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ",
	"phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
	"Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"partial": "∂", "nabla": "∇", "ell": "ℓ", "infty": "∞", "top": "⊤", "emptyset": "∅", "hbar": "ℏ",
}

var texOp = map[string]string{
	"cdot": "⋅", "times": "×", "div": "÷", "pm": "±", "mp": "∓", "in": "∈", "notin": "∉", "ni": "∋",
	"to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "Leftarrow": "⇐",
	"leftrightarrow": "↔", "iff": "⟺", "implies": "⟹", "mapsto": "↦", "gets": "←",
	"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼",
	"simeq": "≃", "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫",
	"odot": "⊙", "oplus": "⊕", "otimes": "⊗", "circ": "∘", "ast": "∗", "star": "⋆", "bullet": "∙",
	"cap": "∩", "cup": "∪", "setminus": "∖", "subset": "⊂", "subseteq": "⊆", "supset": "⊃",
	"wedge": "∧", "vee": "∨", "neg": "¬", "forall": "∀", "exists": "∃", "mid": "∣",
	"ldots": "…", "cdots": "⋯", "dots": "…", "vdots": "⋮", "ddots": "⋱",
	"langle": "⟨", "rangle": "⟩", "lVert": "‖", "rVert": "‖", "lvert": "|", "rvert": "|", "vert": "|",
	"lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "colon": ":",
}

var texBigOp = map[string]string{
	"sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "oint": "∮", "bigoplus": "⨁", "bigotimes": "⨂",
	"bigcup": "⋃", "bigcap": "⋂", "bigvee": "⋁", "bigwedge": "⋀",
}

var texSpace = map[string]string{
	",": "0.1667em", ":": "0.2222em", ">": "0.2222em", ";": "0.2778em", " ": "0.25em",
	"quad": "1em", "qquad": "2em", "!": "0em", // MathML Core has no negative space
}

var texFunc = map[string]bool{
	"log": true, "ln": true, "exp": true, "sin": true, "cos": true, "tan": true, "tanh": true,
	"sinh": true, "cosh": true, "arg": true, "det": true, "dim": true, "deg": true, "ker": true, "Pr": true,
}

var texLimitFunc = map[string]bool{"min": true, "max": true, "lim": true, "sup": true, "inf": true, "argmax": true, "argmin": true}

var texAccent = map[string]string{
	"hat": "^", "widehat": "^", "tilde": "~", "widetilde": "~", "bar": "¯", "overline": "¯",
	"vec": "→", "dot": "˙", "ddot": "¨",
}

var texDelim = map[string]string{
	"{": "{", "}": "}", "|": "‖", "lVert": "‖", "rVert": "‖", "lvert": "|", "rvert": "|", "vert": "|", "Vert": "‖",
	"langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
}
