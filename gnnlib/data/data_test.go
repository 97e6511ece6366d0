package data

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data/datatest"
)

// TestMain points the loaders at the shared datasets, offline (datatest).
func TestMain(m *testing.M) { datatest.Main(m) }

// needData skips when the shared datasets are absent, saying where it looked.
func needData(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join(os.Getenv("GNNLAB_DATA"), sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no datasets in %s (set GNNLAB_DATA to the shared datasets folder): %v", dir, err)
	}
	return dir
}

func TestPlanetoidCora(t *testing.T) {
	needData(t, "planetoid")
	ds, err := Planetoid("cora")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want int
	}{
		{"nodes", ds.NumNodes(), 2708},
		{"graph nodes", ds.Graph.NumNodes(), 2708},
		{"edges", ds.Graph.NumEdges(), 10556},
		{"features", ds.NumFeatures(), 1433},
		{"classes", ds.NumClasses(), 7},
		{"train", len(ds.TrainIdx), 140},
		{"val", len(ds.ValIdx), 500},
		{"test", len(ds.TestIdx), 1000},
		{"X rows", ds.X.Size(0), 2708},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Planetoid(cora) %s = %d, want %d", c.name, c.got, c.want)
		}
	}
	counts := make([]int, ds.NumClasses())
	for _, y := range ds.Y {
		counts[y]++
	}
	if want := []int{351, 217, 418, 818, 426, 298, 180}; !slices.Equal(counts, want) {
		t.Errorf("Cora class sizes = %v, want %v", counts, want)
	}
	// The first labels and split bounds, as PyG's Planetoid gives them.
	if want := []int{3, 4, 4, 0, 3, 2, 0, 3, 3, 2}; !slices.Equal(ds.Y[:10], want) {
		t.Errorf("Cora y[:10] = %v, want %v", ds.Y[:10], want)
	}
	if ds.TrainIdx[139] != 139 || ds.ValIdx[0] != 140 || ds.ValIdx[499] != 639 || ds.TestIdx[0] != 1708 || ds.TestIdx[999] != 2707 {
		t.Errorf("Cora split bounds: train ..%d, val %d..%d, test %d..%d", ds.TrainIdx[139], ds.ValIdx[0], ds.ValIdx[499], ds.TestIdx[0], ds.TestIdx[999])
	}
	g := ds.Graph
	if !g.IsSymmetric() || g.Coalesce().NumEdges() != g.NumEdges() || g.RemoveSelfLoops().NumEdges() != g.NumEdges() {
		t.Errorf("Cora graph is not symmetric, simple and loop-free")
	}
	indptr, _, values := ds.FeatureCSR()
	nnz := indptr[len(indptr)-1]
	if density := float64(nnz) / (2708 * 1433); density < 0.0126 || density > 0.0128 {
		t.Errorf("Cora feature density = %.4f%%, want about 1.27%%", 100*density)
	}
	for _, v := range values {
		if v != 1 {
			t.Fatalf("Cora feature value %v, want binary features", v)
		}
	}
	if !ds.X.IsSparse() || ds.X.NNZ() != nnz {
		t.Errorf("X is sparse %v with %d entries, want sparse with %d", ds.X.IsSparse(), ds.X.NNZ(), nnz)
	}
	ds.NormalizeFeatures()
	_, _, values = ds.FeatureCSR()
	for r := 0; r < 5; r++ {
		var s float32
		for k := indptr[r]; k < indptr[r+1]; k++ {
			s += values[k]
		}
		if s < 0.999 || s > 1.001 {
			t.Errorf("after NormalizeFeatures row %d sums to %v, want 1", r, s)
		}
	}
}

func TestPlanetoidUnknown(t *testing.T) {
	if _, err := Planetoid("imagenet"); !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("Planetoid(imagenet) error = %v, want ErrUnknownDataset", err)
	}
}

// copyData copies the named files of src into a fresh GNNLAB_DATA tree
// under sub, truncating the one named corrupt to half its size.
func copyData(t *testing.T, src, sub string, names []string, corrupt string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if n == corrupt {
			b = b[:len(b)/2]
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GNNLAB_DATA", root)
}

func TestPlanetoidBadFiles(t *testing.T) {
	src := needData(t, "planetoid")
	var all []string
	for _, ext := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
		all = append(all, "ind.cora."+ext)
	}
	for _, corrupt := range []string{"ind.cora.x", "ind.cora.ty", "ind.cora.graph"} {
		t.Run("truncated "+corrupt, func(t *testing.T) {
			copyData(t, src, "planetoid", all, corrupt)
			_, err := Planetoid("cora")
			var fe *FileError
			if !errors.As(err, &fe) || fe.Name != corrupt || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Planetoid(cora) with %s truncated: error = %v, want a *FileError for it wrapping ErrCorrupt", corrupt, err)
			}
			if !strings.Contains(err.Error(), fe.Path) || !strings.HasSuffix(fe.Path, corrupt) {
				t.Errorf("error %q does not name the file's path %q", err, fe.Path)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		copyData(t, src, "planetoid", all[1:], "")
		_, err := Planetoid("cora")
		var fe *FileError
		if !errors.As(err, &fe) || fe.Name != "ind.cora.x" || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Planetoid(cora) without ind.cora.x: error = %v, want a *FileError wrapping fs.ErrNotExist", err)
		}
		if len(fe.Looked) < 2 || !strings.Contains(err.Error(), fe.Looked[0]) {
			t.Errorf("error %q does not list where it looked (%v)", err, fe.Looked)
		}
	})
}

func TestKarateClub(t *testing.T) {
	ds := KarateClub()
	if ds.NumNodes() != 34 || ds.Graph.NumEdges() != 2*78 || ds.NumClasses() != 2 || ds.NumFeatures() != 34 {
		t.Errorf("KarateClub() = %v, want 34 nodes, 156 directed edges, 2 classes, 34 features", ds)
	}
	if len(karateEdges) != 78 || ds.Graph.Coalesce().NumEdges() != 156 || !ds.Graph.IsSymmetric() {
		t.Errorf("karate table has %d pairs, %d distinct directed edges; want 78 and 156", len(karateEdges), ds.Graph.Coalesce().NumEdges())
	}
	officer := 0
	for _, y := range ds.Y {
		officer += y
	}
	if officer != 17 || ds.Y[0] != 0 || ds.Y[33] != 1 || ds.Y[8] != 0 {
		t.Errorf("karate factions: %d officer members, y[0]=%d y[8]=%d y[33]=%d; want 17, 0, 0, 1", officer, ds.Y[0], ds.Y[8], ds.Y[33])
	}
	deg := ds.Graph.InDegrees()
	if deg[0] != 16 || deg[33] != 17 {
		t.Errorf("degrees of the leaders = %d, %d; want 16, 17", deg[0], deg[33])
	}
	if len(ds.TrainIdx)+len(ds.TestIdx) != 34 {
		t.Errorf("karate split covers %d nodes, want 34", len(ds.TrainIdx)+len(ds.TestIdx))
	}
}

func TestMNIST(t *testing.T) {
	needData(t, "mnist")
	s, err := MNIST("test")
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 10000 || !slices.Equal(s.X.Shape(), []int{10000, 1, 28, 28}) {
		t.Fatalf("MNIST(test) = %v, want 10000 images of 1×28×28", s)
	}
	if want := []int{7, 2, 1, 0, 4}; !slices.Equal(s.Y[:5], want) {
		t.Errorf("MNIST(test) first labels = %v, want %v", s.Y[:5], want)
	}
	lo, hi := float32(1), float32(0)
	for _, v := range s.X.Data() {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo != 0 || hi != 1 {
		t.Errorf("MNIST pixel range [%v, %v], want [0, 1]", lo, hi)
	}
	counts := make([]int, 10)
	for _, y := range s.Y {
		counts[y]++
	}
	// The t10k set's class sizes.
	if want := []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}; !slices.Equal(counts, want) {
		t.Errorf("MNIST(test) class sizes = %v, want %v", counts, want)
	}
}

func TestMNISTBadFiles(t *testing.T) {
	src := needData(t, "mnist")
	names := []string{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}
	for _, corrupt := range names {
		t.Run("truncated "+corrupt, func(t *testing.T) {
			copyData(t, src, "mnist", names, corrupt)
			_, err := MNIST("test")
			var fe *FileError
			if !errors.As(err, &fe) || fe.Name != corrupt || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), corrupt) {
				t.Fatalf("MNIST(test) with %s truncated: error = %v, want a *FileError naming it, wrapping ErrCorrupt", corrupt, err)
			}
		})
	}
	t.Run("swapped", func(t *testing.T) {
		// The labels file where the images belong: a wrong magic number.
		root := t.TempDir()
		dir := filepath.Join(root, "mnist")
		os.MkdirAll(dir, 0o755)
		b, _ := os.ReadFile(filepath.Join(src, names[1]))
		os.WriteFile(filepath.Join(dir, names[0]), b, 0o644)
		t.Setenv("GNNLAB_DATA", root)
		_, err := MNIST("test")
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "magic") {
			t.Errorf("MNIST with a labels file as images: error = %v, want ErrCorrupt about the magic number", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Setenv("GNNLAB_DATA", t.TempDir())
		_, err := MNIST("train")
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, fs.ErrNotExist) || fe.Name != "train-images-idx3-ubyte.gz" {
			t.Errorf("MNIST(train) with no files: error = %v, want a *FileError wrapping fs.ErrNotExist", err)
		}
	})
}
