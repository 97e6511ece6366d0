package data

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tuFiles generates a small TU-format dataset (not a real one): graphs of
// class label −1 are cycles, of label 1 stars, on 5 to 9 nodes; every
// node has an uninformative label in {1, 2, 3} and two attributes. Edges
// are listed in both directions, and graph 1 also gets a self-loop and a
// duplicate edge, which the loader must drop. It returns the files by
// suffix and the number of nodes and undirected edges of each graph.
func tuFiles(numGraphs int, seed uint64) (files map[string]string, nodes, edges []int) {
	r := rand.New(rand.NewPCG(seed, 1))
	var a, ind, glab, nlab, nattr strings.Builder
	next := 1
	for g := 1; g <= numGraphs; g++ {
		n := 5 + r.IntN(5)
		star := g%2 == 0
		fmt.Fprintln(&glab, map[bool]int{false: -1, true: 1}[star])
		for i := 0; i < n; i++ {
			fmt.Fprintln(&ind, g)
			fmt.Fprintln(&nlab, 1+r.IntN(3))
			fmt.Fprintf(&nattr, "%.3f, %.3f\n", r.Float64(), -r.Float64())
		}
		m := 0
		edge := func(u, v int) {
			fmt.Fprintf(&a, "%d, %d\n%d, %d\n", next+u, next+v, next+v, next+u)
			m++
		}
		for i := 1; i < n; i++ {
			if star {
				edge(0, i)
			} else {
				edge(i-1, i)
			}
		}
		if !star {
			edge(n-1, 0)
		}
		if g == 1 {
			fmt.Fprintf(&a, "%d, %d\n%d, %d\n", next, next, next, next+1)
		}
		nodes, edges = append(nodes, n), append(edges, m)
		next += n
	}
	return map[string]string{
		"A": a.String(), "graph_indicator": ind.String(), "graph_labels": glab.String(),
		"node_labels": nlab.String(), "node_attributes": nattr.String(),
	}, nodes, edges
}

func writeTU(t *testing.T, dir, name string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for kind, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name+"_"+kind+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadTU(t *testing.T) {
	files, nodes, edges := tuFiles(12, 1)
	dir := t.TempDir()
	writeTU(t, dir, "GEN", files)
	d, err := LoadTU(dir, "GEN")
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 12 || d.NumClasses() != 2 || d.NumFeatures() != 2+3 {
		t.Fatalf("LoadTU = %v, want 12 graphs, 2 classes, 5 features", d)
	}
	attr := strings.Split(strings.TrimSpace(files["node_attributes"]), "\n")
	labs := strings.Split(strings.TrimSpace(files["node_labels"]), "\n")
	v := 0
	for g, gr := range d.Graphs {
		if gr.NumNodes() != nodes[g] || gr.NumEdges() != 2*edges[g] || !gr.IsSymmetric() {
			t.Errorf("graph %d: %v, symmetric %t; want %d nodes, %d edges, symmetric", g, gr, gr.IsSymmetric(), nodes[g], 2*edges[g])
		}
		if want := g % 2; d.Y[g] != want {
			t.Errorf("Y[%d] = %d, want %d (labels −1, 1 renumbered)", g, d.Y[g], want)
		}
		x := d.X[g].Data()
		for i := 0; i < nodes[g]; i++ {
			var a0, a1 float32
			fmt.Sscanf(attr[v], "%g, %g", &a0, &a1)
			var l int
			fmt.Sscan(labs[v], &l)
			want := []float32{a0, a1, 0, 0, 0}
			want[2+l-1] = 1
			if row := x[i*5 : i*5+5]; !slices.Equal(row, want) {
				t.Errorf("graph %d node %d: features %v, want %v", g, i, row, want)
			}
			if d.NodeLabels[g][i] != l-1 {
				t.Errorf("graph %d node %d: NodeLabels %d, want %d", g, i, d.NodeLabels[g][i], l-1)
			}
			v++
		}
	}
	b := d.Batch([]int{3, 0, 5})
	if b.NumGraphs != 3 || b.Graph.NumNodes() != nodes[3]+nodes[0]+nodes[5] || b.X.Size(0) != b.Graph.NumNodes() || len(b.Batch) != b.Graph.NumNodes() {
		t.Fatalf("Batch: %v with %d feature rows and %d batch entries", b.Graph, b.X.Size(0), len(b.Batch))
	}
	if !slices.Equal(b.Y, []int{d.Y[3], d.Y[0], d.Y[5]}) || b.Batch[0] != 0 || b.Batch[len(b.Batch)-1] != 2 {
		t.Errorf("Batch: Y %v, batch %v", b.Y, b.Batch)
	}
}

func TestLoadTUWithoutNodeFiles(t *testing.T) {
	files, _, _ := tuFiles(4, 2)
	delete(files, "node_labels")
	delete(files, "node_attributes")
	dir := t.TempDir()
	writeTU(t, dir, "BARE", files)
	d, err := LoadTU(dir, "BARE")
	if err != nil {
		t.Fatal(err)
	}
	if d.NumFeatures() != 1 || d.NodeLabels != nil || d.X[0].Data()[0] != 1 {
		t.Errorf("without node files: %d features, NodeLabels %v, x[0] %v; want one constant feature", d.NumFeatures(), d.NodeLabels, d.X[0].Data()[0])
	}
}

func TestLoadTUErrors(t *testing.T) {
	good, _, _ := tuFiles(3, 3)
	tests := []struct {
		name, kind, text string
		missing          bool
	}{
		{"no A file", "A", "", true},
		{"no graph labels", "graph_labels", "", true},
		{"not a number", "A", "1, x\n", false},
		{"one endpoint", "A", "1\n", false},
		{"edge out of range", "A", "1, 999\n", false},
		{"edge between graphs", "A", "1, " + fmt.Sprint(strings.Count(good["graph_indicator"], "\n")) + "\n", false},
		{"graph out of range", "graph_indicator", strings.Replace(good["graph_indicator"], "3\n", "4\n", 1), false},
		{"graphs out of order", "graph_indicator", "2\n" + good["graph_indicator"][2:], false},
		{"short node labels", "node_labels", "1\n", false},
		{"ragged attributes", "node_attributes", "1, 2\n3\n", false},
		{"fractional label", "graph_labels", "0.5\n1\n1\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range good {
				files[k] = v
			}
			if tt.missing {
				delete(files, tt.kind)
			} else {
				files[tt.kind] = tt.text
			}
			dir := t.TempDir()
			writeTU(t, dir, "BAD", files)
			_, err := LoadTU(dir, "BAD")
			var fe *FileError
			if !errors.As(err, &fe) || fe.Name != "BAD_"+tt.kind+".txt" {
				t.Fatalf("LoadTU = %v, want a *FileError naming BAD_%s.txt", err, tt.kind)
			}
			if tt.missing && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("LoadTU = %v, want fs.ErrNotExist", err)
			}
			if !tt.missing && !errors.Is(err, ErrCorrupt) {
				t.Errorf("LoadTU = %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestTUDataset finds a dataset under $GNNLAB_DATA, then downloads one
// from a local server standing in for the TU site and unpacks it into the
// cache.
func TestTUDataset(t *testing.T) {
	files, _, _ := tuFiles(6, 4)
	root := t.TempDir()
	writeTU(t, filepath.Join(root, "tu", "LOCAL"), "LOCAL", files)
	t.Setenv("GNNLAB_DATA", root)
	t.Setenv("GNNLAB_CACHE", t.TempDir())
	d, err := TUDataset("LOCAL")
	if err != nil || d.Len() != 6 {
		t.Fatalf("TUDataset(LOCAL) = %v, %v; want 6 graphs", d, err)
	}

	var zipped bytes.Buffer
	z := zip.NewWriter(&zipped)
	for kind, text := range files {
		w, _ := z.Create("REMOTE/REMOTE_" + kind + ".txt")
		w.Write([]byte(text))
	}
	w, _ := z.Create("../REMOTE_evil.txt") // must not be written outside the cache
	w.Write([]byte("x"))
	z.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/REMOTE.zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(zipped.Bytes())
	}))
	defer srv.Close()
	defer func(u string) { tuURL = u }(tuURL)
	tuURL = srv.URL + "/"

	t.Setenv("GNNLAB_OFFLINE", "1")
	if _, err := TUDataset("REMOTE"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TUDataset(REMOTE) offline = %v, want fs.ErrNotExist", err)
	}
	t.Setenv("GNNLAB_OFFLINE", "")
	d, err = TUDataset("REMOTE")
	if err != nil || d.Len() != 6 {
		t.Fatalf("TUDataset(REMOTE) = %v, %v; want 6 graphs", d, err)
	}
	cache, _ := CacheDir()
	if _, err := os.Stat(filepath.Join(cache, "tu", "REMOTE", "REMOTE_A.txt")); err != nil {
		t.Errorf("download not unpacked into the cache: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "tu", "REMOTE_evil.txt")); err == nil {
		t.Errorf("an archive entry named ../ was written outside the dataset's folder")
	}
	if _, err := TUDataset("MISSING"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("TUDataset(MISSING) = %v, want fs.ErrNotExist", err)
	}
	if _, err := TUDataset("../x"); !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("TUDataset(../x) = %v, want ErrUnknownDataset", err)
	}
}
