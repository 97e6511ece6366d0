//go:build cgo && (linux || darwin)

package compiled

import (
	"fmt"
	"plugin"
	"reflect"
)

const pluginsSupported = true

// open loads the plugin at path and returns its Symbols (the cell's
// values by their yaegi names) as reflect.Values.
func open(path string) (map[string]reflect.Value, error) {
	p, err := plugin.Open(path)
	if err != nil {
		return nil, err
	}
	sym, err := p.Lookup("Symbols")
	if err != nil {
		return nil, err
	}
	vals, ok := sym.(*map[string]any)
	if !ok {
		return nil, fmt.Errorf("compiled: %s: Symbols is a %T, want *map[string]any", path, sym)
	}
	syms := make(map[string]reflect.Value, len(*vals))
	for k, v := range *vals {
		syms[k] = reflect.ValueOf(v)
	}
	return syms, nil
}
