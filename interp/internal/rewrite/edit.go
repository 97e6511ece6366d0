package rewrite

import (
	"go/token"
	"sort"
	"strconv"
)

// CellFile is the file name of every piece of cell code given to yaegi:
// yaegi's own name for Eval'd source, because yaegi scopes imports by the
// base name of a node's file. The cell number and line are carried by the
// line number, set with //line directives.
const CellFile = "_.go"

// LineStride separates the line numbers of consecutive cells: line L of
// cell N is line N*LineStride+L (its virtual line) for the parser and
// yaegi.
const LineStride = 100000

// VirtualLine is the line that the parser and yaegi see for line of cell.
func VirtualLine(cell, line int) int { return cell*LineStride + line }

// CellLine is the cell and its line of virtual line v.
func CellLine(v int) (cell, line int) { return v / LineStride, v % LineStride }

// edit replaces src[start:end] by text; an insertion has start == end.
type edit struct {
	start, end int
	text       string
	wrap       bool // the trailing-value wrapper, dropped on a retry
}

// Editor collects text edits of one parsed source. yaegi is given source
// text, so the session's rewrites are edits of the cell's text that keep
// every other byte, and therefore positions, where it was.
type Editor struct {
	fset  *token.FileSet
	file  *token.File
	src   string
	edits []edit
}

// NewEditor returns an editor of src, the text of the file of pos in fset.
func NewEditor(fset *token.FileSet, pos token.Pos, src string) *Editor {
	return &Editor{fset: fset, file: fset.File(pos), src: src}
}

// EditedIn reports whether an edit overlaps the offsets [a, b) or
// inserts text in [a, b].
func (e *Editor) EditedIn(a, b int) bool {
	for _, ed := range e.edits {
		if ed.start < b && ed.end > a || ed.start == ed.end && ed.start >= a && ed.start <= b {
			return true
		}
	}
	return false
}

// Straddled reports whether an edit covers part of [from, to) and text
// outside it.
func (e *Editor) Straddled(from, to token.Pos) bool {
	a, b := e.Off(from), e.Off(to)
	for _, ed := range e.edits {
		switch {
		case ed.start == ed.end && (ed.start == a || ed.start == b), ed.end <= a, ed.start >= b:
		case ed.start >= a && ed.end <= b:
		default:
			return true
		}
	}
	return false
}

// Collapse replaces [from, to) by text, dropping the edits inside it
// (see Straddled), keeping those around it and at its ends.
func (e *Editor) Collapse(from, to token.Pos, text string) {
	a, b := e.Off(from), e.Off(to)
	var outer []edit
	for _, ed := range e.edits {
		if ed.start == ed.end && (ed.start == a || ed.start == b) || ed.end <= a || ed.start >= b {
			outer = append(outer, ed)
		}
	}
	e.edits = append(outer, edit{start: a, end: b, text: text})
}

// Off is the offset of p in the source.
func (e *Editor) Off(p token.Pos) int { return e.file.Offset(p) }

// Replace replaces the text from from to to by text.
func (e *Editor) Replace(from, to token.Pos, text string) {
	e.edits = append(e.edits, edit{start: e.Off(from), end: e.Off(to), text: text})
}

// Insert inserts text at at; wrap marks the trailing-value wrapper.
func (e *Editor) Insert(at token.Pos, text string, wrap bool) {
	o := e.Off(at)
	e.edits = append(e.edits, edit{start: o, end: o, text: text, wrap: wrap})
}

// Text returns src[from:to] with the edits inside applied.
func (e *Editor) Text(from, to token.Pos, withWrap bool) string {
	a, b := e.Off(from), e.Off(to)
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

// Piece returns the edited text of [from, to) after a //line directive
// that gives it its cell position; prefix is written before it, with the
// column moved back so that the piece itself keeps its column.
func (e *Editor) Piece(from, to token.Pos, prefix string, withWrap bool) string {
	p := e.fset.Position(from)
	col := max(p.Column-len(prefix), 1)
	return "\n//line " + CellFile + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(col) + "\n" + prefix + e.Text(from, to, withWrap) + "\n"
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
