// Package symtypes tells go/types about the compiled packages of the
// interpreter (the yaegi symbol tables of interp/symbols and the standard
// library), so that the session type-checks cells without Go's export
// data.
package symtypes

import (
	"go/types"
	"reflect"
)

// Importer is a types.Importer of the packages in the interpreter's
// symbol tables.
var Importer types.Importer = symTypes

// Import returns package path of the symbol tables as go/types sees it.
func Import(path string) (*types.Package, error) { return symTypes.Import(path) }

// TypeOf converts a reflect type, reporting false for a type that
// go/types cannot be told about.
func TypeOf(t reflect.Type) (types.Type, bool) { return symTypes.TypeOf(t) }

// Object converts one symbol of a table (name, v) into an object of
// package p; nil when go/types cannot be told about it.
func Object(p *types.Package, name string, v reflect.Value) types.Object {
	symTypes.mu.Lock()
	defer symTypes.mu.Unlock()
	return symTypes.object(p, name, v)
}
