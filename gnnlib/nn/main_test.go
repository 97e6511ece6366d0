package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/data/datatest"
)

// TestMain points the loaders at the shared datasets, offline (datatest).
func TestMain(m *testing.M) { datatest.Main(m) }

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
