//go:build !cgo || !(linux || darwin)

package compiled

import (
	"errors"
	"reflect"
)

const pluginsSupported = false

func open(string) (map[string]reflect.Value, error) {
	return nil, errors.New("compiled: no plugins on this platform")
}
