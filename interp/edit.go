package interp

import (
	"go/token"
	"sort"
	"strconv"
)

// edit replaces src[start:end] by text; an insertion has start == end.
type edit struct {
	start, end int
	text       string
	wrap       bool // the trailing-value wrapper, dropped on a retry
}

// editor collects text edits of one parsed source. yaegi is given source
// text, so the session's rewrites are edits of the cell's text that keep
// every other byte, and therefore positions, where it was.
type editor struct {
	fset  *token.FileSet
	file  *token.File
	src   string
	edits []edit
}

func newEditor(fset *token.FileSet, pos token.Pos, src string) *editor {
	return &editor{fset: fset, file: fset.File(pos), src: src}
}

func (e *editor) off(p token.Pos) int { return e.file.Offset(p) }

func (e *editor) replace(from, to token.Pos, text string) {
	e.edits = append(e.edits, edit{start: e.off(from), end: e.off(to), text: text})
}

func (e *editor) insert(at token.Pos, text string, wrap bool) {
	o := e.off(at)
	e.edits = append(e.edits, edit{start: o, end: o, text: text, wrap: wrap})
}

// text returns src[from:to] with the edits inside applied.
func (e *editor) text(from, to token.Pos, withWrap bool) string {
	a, b := e.off(from), e.off(to)
	var in []edit
	for _, ed := range e.edits {
		if ed.start >= a && ed.end <= b && (withWrap || !ed.wrap) {
			in = append(in, ed)
		}
	}
	in = dropCovered(in)
	// Apply from the end; at one offset, a replacement goes before an
	// insertion so that the insertion lands in front of it.
	sort.SliceStable(in, func(i, j int) bool {
		if in[i].start != in[j].start {
			return in[i].start > in[j].start
		}
		return in[i].end > in[j].end
	})
	s := e.src[a:b]
	for _, ed := range in {
		s = s[:ed.start-a] + ed.text + s[ed.end-a:]
	}
	return s
}

// piece returns the edited text of [from, to) after a //line directive
// that gives it its cell position; prefix is written before it, with the
// column moved back so that the piece itself keeps its column.
func (e *editor) piece(from, to token.Pos, prefix string, withWrap bool) string {
	p := e.fset.Position(from)
	col := max(p.Column-len(prefix), 1)
	return "\n//line " + cellFile + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(col) + "\n" + prefix + e.text(from, to, withWrap) + "\n"
}

// dropCovered leaves out the edits inside a replacement that covers them
// (goLits replaces a literal whose text it has moved, edits and all):
// insertions at its ends stay, and so do replacements of the same range.
func dropCovered(in []edit) []edit {
	out := in[:0:0]
	for _, e := range in {
		covered := false
		for _, c := range in {
			if c.start == c.end || e.start < c.start || e.end > c.end || (e.start == c.start && e.end == c.end) {
				continue
			}
			if e.start == e.end && (e.start == c.start || e.start == c.end) {
				continue
			}
			covered = true
			break
		}
		if !covered {
			out = append(out, e)
		}
	}
	return out
}
