package nn_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
)

// TestMain points the data loaders at the shared datasets (GNNLAB_DATA,
// else ../../../shared/datasets from this folder) and keeps them offline.
func TestMain(m *testing.M) {
	if os.Getenv("GNNLAB_DATA") == "" {
		if abs, err := filepath.Abs("../../../shared/datasets"); err == nil {
			os.Setenv("GNNLAB_DATA", abs)
		}
	}
	os.Setenv("GNNLAB_OFFLINE", "1")
	os.Exit(m.Run())
}

// cora loads Cora with row-normalised features, or skips without data.
func cora(t testing.TB) *data.Dataset {
	t.Helper()
	ds, err := data.Planetoid("cora")
	if err != nil {
		t.Skipf("Cora not available (set GNNLAB_DATA): %v", err)
	}
	ds.NormalizeFeatures()
	return ds
}
