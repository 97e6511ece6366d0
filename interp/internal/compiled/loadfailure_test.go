package compiled

import (
	"errors"
	"strings"
	"testing"
)

// TestLoadFailure: a plugin holding another build of a package of a
// module that %go get added is said to be the module having changed; one
// of any other package (gnnlib, a module the binary was built with) is
// said to be a binary not built from the checkout.
func TestLoadFailure(t *testing.T) {
	b := &Builder{env: Env{Checkout: "/src/gnnlab"}, added: []string{"example.com/greet", "example.com/x"}}
	open := func(pkg string) error {
		return errors.New(`plugin.Open("/tmp/c2"): plugin was built with a different version of package ` + pkg)
	}
	for _, tt := range []struct{ pkg, want string }{
		{"example.com/greet", "it links package example.com/greet as its module is now"},
		{"example.com/greet/generic", "it links package example.com/greet/generic as its module is now"},
		{"example.com/greeter", "(was the binary built from /src/gnnlab as it is now?)"},
		{"github.com/gnnlab/gnnlab/gnnlib/nn", "(was the binary built from /src/gnnlab as it is now?)"},
		{"gonum.org/v1/gonum/mat", "(was the binary built from /src/gnnlab as it is now?)"},
	} {
		if got := b.loadFailure(open(tt.pkg)); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want it to contain %q", tt.pkg, got, tt.want)
		}
	}
}
