package complete

import (
	"bytes"
	"go/token"
	"iter"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fakeSession is a Session made of maps: what a session of two cells
// holds, one declaring type counter with a method, one importing fmt.
type fakeSession struct {
	globals map[string]reflect.Value
	imports []Import
	decls   map[string]*Decl
}

func (f *fakeSession) Globals() map[string]reflect.Value { return f.globals }
func (f *fakeSession) Imports() []Import                 { return f.imports }
func (f *fakeSession) Decl(name string) (*Decl, bool) {
	d, ok := f.decls[name]
	return d, ok
}
func (f *fakeSession) Decls() iter.Seq2[string, *Decl] {
	return func(yield func(string, *Decl) bool) {
		for n, d := range f.decls {
			if !yield(n, d) {
				return
			}
		}
	}
}

func newFake() *fakeSession {
	// yaegi's reflect type of an interpreted struct: field count is Xcount.
	counterType := reflect.StructOf([]reflect.StructField{{Name: "Xcount", Type: reflect.TypeFor[int]()}})
	c := reflect.New(counterType).Elem()
	return &fakeSession{
		globals: map[string]reflect.Value{
			"c":   c,
			"buf": reflect.ValueOf(&bytes.Buffer{}),
		},
		imports: []Import{{Name: "fmt", Path: "fmt"}, {Name: "str", Path: "strings"}},
		decls: map[string]*Decl{
			"counter": {Names: []string{"counter"}, Tok: token.TYPE, Text: "type counter struct{ count int }", Doc: "counter counts.\n", Cell: 1},
			"counter.Inc": {Names: []string{"counter.Inc"}, Tok: token.FUNC, Method: true,
				Text: "func (c *counter) Inc() { c.count++ }", Cell: 1},
			"twice": {Names: []string{"twice"}, Tok: token.FUNC, Text: "func twice(x int) int {\n\treturn 2 * x\n}", Cell: 2},
		},
	}
}

func TestComplete(t *testing.T) {
	s := newFake()
	for _, tt := range []struct {
		code       string
		want, not  []string
		start, end int
	}{
		{code: "c.", want: []string{"Inc", "count"}, not: []string{"Xcount"}, start: 2, end: 2},
		{code: "buf.", want: []string{"Len", "WriteString"}, not: []string{"buf", "off"}, start: 4, end: 4},
		{code: "tw", want: []string{"twice"}, start: 0, end: 2},
		{code: "str.Has", want: []string{"HasPrefix", "HasSuffix"}, start: 4, end: 7},
		{code: "fo", want: []string{"for"}, start: 0, end: 2},
		{code: "co", want: []string{"counter"}, not: []string{"counter.Inc"}, start: 0, end: 2},
	} {
		got, start, end := Complete(s, tt.code, len(tt.code))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Complete(%q) = %v, want %s among them", tt.code, got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("Complete(%q) = %v, want no %s", tt.code, got, n)
			}
		}
		if start != tt.start || end != tt.end {
			t.Errorf("Complete(%q) replaces [%d, %d), want [%d, %d)", tt.code, start, end, tt.start, tt.end)
		}
		if !slices.IsSorted(got) {
			t.Errorf("Complete(%q) = %v, not sorted", tt.code, got)
		}
	}
}

func TestInspect(t *testing.T) {
	s := newFake()
	for _, tt := range []struct {
		code   string
		detail int
		want   []string
	}{
		{code: "twice", want: []string{"func twice(x int) int", "(defined in cell[2])"}},
		{code: "twice", detail: 1, want: []string{"return 2 * x"}},
		{code: "counter", want: []string{"counter counts.", "(defined in cell[1])"}},
		{code: "c.Inc", want: []string{"func (c *counter) Inc()"}},
		{code: "twice(3, ", want: []string{"func twice(x int) int"}},
		{code: "str.HasPrefix", want: []string{"HasPrefix"}},
	} {
		got, found := Inspect(s, tt.code, len(tt.code), tt.detail)
		if !found {
			t.Errorf("Inspect(%q, %d) found nothing", tt.code, tt.detail)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("Inspect(%q, %d) = %q, want %q in it", tt.code, tt.detail, got, w)
			}
		}
	}
	if got, found := Inspect(s, "nosuch", 6, 0); found {
		t.Errorf("Inspect(%q) = %q, want nothing", "nosuch", got)
	}
}
