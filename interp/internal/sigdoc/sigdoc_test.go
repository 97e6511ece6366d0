package sigdoc

import "testing"

func TestSource(t *testing.T) {
	for _, c := range []struct{ src, doc, want string }{
		{"func  Add( a,b int )int { return a+b }", "", "func Add(a, b int) int"},
		{"func (p *Point) Scale(k float64) { p.X *= k }", "Scale scales p.\n", "func (p *Point) Scale(k float64)\n\nScale scales p."},
		{"type T struct{ A int; Name string }", "", "type T struct {\n\tA    int\n\tName string\n}"},
		{"var x = 1 +   2", "", "var x = 1 + 2"},
		{"x := 1", "", "x := 1"}, // not a declaration: as written
	} {
		if got := Source(c.src, c.doc); got != c.want {
			t.Errorf("Source(%q, %q) = %q, want %q", c.src, c.doc, got, c.want)
		}
	}
}
