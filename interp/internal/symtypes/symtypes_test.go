package symtypes

import (
	"go/types"
	"reflect"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/interp/symbols"
	"github.com/traefik/yaegi/stdlib"
)

func TestSymbolTypesImport(t *testing.T) {
	// Every package of the interpreter converts.
	for _, tables := range []map[string]map[string]reflect.Value{stdlib.Symbols, symbols.Symbols} {
		for key := range tables {
			i := strings.LastIndex(key, "/")
			if i <= 0 {
				continue // "." holds yaegi's settings
			}
			path := key[:i]
			if _, err := symTypes.Import(path); err != nil {
				t.Errorf("Import(%q) = %v", path, err)
			}
		}
	}
	tests := []struct {
		path, name string
		want       string // the object's type
	}{
		{"github.com/gnnlab/gnnlab/gnnlib/graph", "FromEdges", "func(int, []int, []int) (*github.com/gnnlab/gnnlab/gnnlib/graph.Graph, error)"},
		{"github.com/gnnlab/gnnlab/gnnlib/nn", "NewLinear", "func(int, int) *github.com/gnnlab/gnnlab/gnnlib/nn.Linear"},
		{"time", "Second", "time.Duration"},
		{"math", "Pi", "untyped float"},
		{"fmt", "Println", "func(...interface{}) (int, error)"},
		{"os", "Stdout", "io.Writer"}, // the session's stream, not *os.File
		{"io", "Reader", "io.Reader"},
	}
	for _, tt := range tests {
		p, err := symTypes.Import(tt.path)
		if err != nil {
			t.Fatalf("Import(%q) = %v", tt.path, err)
		}
		obj := p.Scope().Lookup(tt.name)
		if obj == nil {
			t.Errorf("Import(%q) lacks %s", tt.path, tt.name)
			continue
		}
		if got := obj.Type().String(); got != tt.want {
			t.Errorf("type of %s.%s = %s, want %s", tt.path, tt.name, got, tt.want)
		}
	}
	// Fields and methods of compiled types.
	g, _ := symTypes.TypeOf(reflect.TypeFor[*graph.Graph]())
	for _, sel := range []struct{ name, want string }{
		{"Indptr", "[]int"},
		{"NumNodes", "func() int"},
	} {
		obj, _, _ := types.LookupFieldOrMethod(g, true, nil, sel.name)
		if obj == nil || obj.Type().String() != sel.want && !strings.HasSuffix(obj.Type().String(), sel.want) {
			t.Errorf("(*graph.Graph).%s = %v, want %s", sel.name, obj, sel.want)
		}
	}
	if _, err := symTypes.Import("no/such/package"); err == nil {
		t.Errorf("Import(no/such/package) = nil error, want one")
	}
}
