// Package datatest runs tests against local copies of the datasets, as
// net/http/httptest runs them against a local server: gnnlib/data's
// loaders read $GNNLAB_DATA (by default the shared/datasets folder beside
// the module's checkout), with an empty cache and downloads turned off, so
// that a missing file fails or skips instead of being fetched.
package datatest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the datasets folder tests use: $GNNLAB_DATA, else
// shared/datasets beside the directory that holds the module's go.mod
// (found from the working directory up), else "".
func Dir() string {
	if d := os.Getenv("GNNLAB_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "datasets")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Main runs a package's tests with GNNLAB_DATA set to Dir, GNNLAB_CACHE
// set to an empty temporary folder and GNNLAB_OFFLINE=1, and exits with
// their status. Call it from TestMain.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if d := Dir(); d != "" {
		os.Setenv("GNNLAB_DATA", d)
	}
	cache, err := os.MkdirTemp("", "gnnlab-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "datatest:", err)
		return 1
	}
	defer os.RemoveAll(cache)
	os.Setenv("GNNLAB_CACHE", cache)
	os.Setenv("GNNLAB_OFFLINE", "1")
	return m.Run()
}
