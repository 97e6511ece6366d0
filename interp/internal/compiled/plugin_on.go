//go:build cgo && (linux || darwin)

package compiled

import (
	"plugin"
	"reflect"
)

const pluginsSupported = true

func open(path string) (map[string]map[string]reflect.Value, error) {
	p, err := plugin.Open(path)
	if err != nil {
		return nil, err
	}
	sym, err := p.Lookup("Symbols")
	if err != nil {
		return nil, err
	}
	return *sym.(*map[string]map[string]reflect.Value), nil
}
