package data

import (
	"bufio"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
)

// ErrUnknownDataset is wrapped by the error for a dataset name not offered.
var ErrUnknownDataset = errors.New("data: unknown dataset")

const planetoidURL = "https://github.com/kimiyoung/planetoid/raw/master/data/"

func planetoidSource(name, ext string) source {
	file := "ind." + name + "." + ext
	return source{
		name:    file,
		subdirs: []string{"planetoid", name, filepath.Join(name, "raw")},
		cache:   "planetoid",
		url:     planetoidURL + file,
		sha256:  knownSHA256[file],
	}
}

// Planetoid loads one of the Planetoid citation graphs, "cora", "citeseer"
// or "pubmed", with the public split, processed exactly as PyTorch
// Geometric's Planetoid dataset does:
//
//   - x stacks allx and tx, then the test rows are put at their test indices
//     (for citeseer, whose test set skips some nodes, tx is first padded
//     with empty rows for the missing ones); y is the argmax of ally and ty,
//     reordered the same way (padded rows get class 0);
//   - the edges of the adjacency dict are made symmetric, deduplicated and
//     stripped of self-loops (Cora: 2708 nodes, 10556 directed edges);
//   - TrainIdx is the first 20 nodes per class (the rows of y: 140 for
//     Cora), ValIdx the 500 after them, TestIdx the 1000 test indices.
//
// Features are binary bag-of-words rows kept sparse, not normalised, as in
// PyG; call NormalizeFeatures for the row-normalised features of the GCN
// paper.
//
// The files ind.<name>.{x,tx,allx,y,ty,ally,graph,test.index} are read from
// $GNNLAB_DATA/planetoid, $GNNLAB_DATA/<name> or $GNNLAB_DATA/<name>/raw,
// else from CacheDir()/planetoid, else downloaded there from the Planetoid
// repository (unless GNNLAB_OFFLINE is set). A missing or corrupt file gives
// a *FileError naming it and where it was looked for.
func Planetoid(name string) (*Dataset, error) {
	name = strings.ToLower(name)
	switch name {
	case "cora", "citeseer", "pubmed":
	default:
		return nil, fmt.Errorf("data: Planetoid(%q): want cora, citeseer or pubmed: %w", name, ErrUnknownDataset)
	}
	mats := map[string]*csr{}
	for _, ext := range []string{"x", "tx", "allx"} {
		m, err := loadPickledCSR(planetoidSource(name, ext))
		if err != nil {
			return nil, err
		}
		mats[ext] = m
	}
	labels := map[string]*ndarray{}
	for _, ext := range []string{"y", "ty", "ally"} {
		a, err := loadPickledArray(planetoidSource(name, ext))
		if err != nil {
			return nil, err
		}
		labels[ext] = a
	}
	adj, err := loadPickledGraph(planetoidSource(name, "graph"))
	if err != nil {
		return nil, err
	}
	testIndex, err := loadIndex(planetoidSource(name, "test.index"))
	if err != nil {
		return nil, err
	}
	return buildPlanetoid(name, mats, labels, adj, testIndex)
}

func withFile[T any](s source, parse func(*bufio.Reader) (T, error)) (T, error) {
	var zero T
	f, err := s.open()
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := parse(bufio.NewReader(f))
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return zero, &FileError{Name: s.name, Path: f.Name(), Err: err}
	}
	return v, nil
}

func loadPickledCSR(s source) (*csr, error) {
	return withFile(s, func(r *bufio.Reader) (*csr, error) {
		v, err := unpickle(r)
		if err != nil {
			return nil, err
		}
		m, ok := v.(*csrMatrix)
		if !ok {
			return nil, fmt.Errorf("pickle holds %T, want a scipy csr_matrix: %w", v, errPickle)
		}
		return m.toCSR()
	})
}

func loadPickledArray(s source) (*ndarray, error) {
	return withFile(s, func(r *bufio.Reader) (*ndarray, error) {
		v, err := unpickle(r)
		if err != nil {
			return nil, err
		}
		a, ok := v.(*ndarray)
		if !ok || len(a.shape) != 2 {
			return nil, fmt.Errorf("pickle holds %T, want a 2-D numpy array: %w", v, errPickle)
		}
		return a, nil
	})
}

func loadPickledGraph(s source) (map[int][]int, error) {
	return withFile(s, func(r *bufio.Reader) (map[int][]int, error) {
		v, err := unpickle(r)
		if err != nil {
			return nil, err
		}
		d, ok := v.(*defaultDict)
		if !ok {
			return nil, fmt.Errorf("pickle holds %T, want a defaultdict: %w", v, errPickle)
		}
		if _, bad := d.m[-1]; bad {
			return nil, fmt.Errorf("adjacency dict with a non-integer key or list: %w", errPickle)
		}
		return d.m, nil
	})
}

func loadIndex(s source) ([]int, error) {
	return withFile(s, func(r *bufio.Reader) ([]int, error) {
		var out []int
		sc := bufio.NewScanner(r)
		for line := 1; sc.Scan(); line++ {
			t := strings.TrimSpace(sc.Text())
			if t == "" {
				continue
			}
			v, err := strconv.Atoi(t)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("line %d: %q is not a node index", line, t)
			}
			out = append(out, v)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, errors.New("no test indices")
		}
		return out, nil
	})
}

func buildPlanetoid(name string, m map[string]*csr, lab map[string]*ndarray, adj map[int][]int, testIndex []int) (*Dataset, error) {
	allx, tx := m["allx"], m["tx"]
	ally, ty, y := lab["ally"], lab["ty"], lab["y"]
	nClass := ally.shape[1]
	nFeat := allx.cols
	if tx.cols != nFeat || m["x"].cols != nFeat || ty.shape[1] != nClass || y.shape[1] != nClass ||
		tx.rows != ty.shape[0] || allx.rows != ally.shape[0] || tx.rows != len(testIndex) {
		return nil, fmt.Errorf("data: %s: inconsistent Planetoid files: allx %dx%d, tx %dx%d, ally %v, ty %v, %d test indices: %w",
			name, allx.rows, allx.cols, tx.rows, tx.cols, ally.shape, ty.shape, len(testIndex), ErrCorrupt)
	}
	sorted := slices.Clone(testIndex)
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[len(sorted)-1]
	// txRow[k] is the tx row that becomes row k of the (padded) test block,
	// or −1 for padding: PyG pads when the test indices leave gaps
	// (citeseer's isolated nodes), placing tx row i at sorted[i] − lo.
	nTest := tx.rows
	txRow := make([]int, nTest)
	for i := range txRow {
		txRow[i] = i
	}
	if span := hi - lo + 1; span != nTest {
		txRow = make([]int, span)
		for i := range txRow {
			txRow[i] = -1
		}
		for i, s := range sorted {
			txRow[s-lo] = i
		}
	}
	n := allx.rows + len(txRow)
	if hi >= n {
		return nil, fmt.Errorf("data: %s: test index %d beyond %d nodes: %w", name, hi, n, ErrCorrupt)
	}
	// src[r] is the stacked row that ends up as row r: x[test_index] =
	// x[sorted_test_index], evaluated right side first.
	src := make([]int, n)
	for r := range src {
		src[r] = r
	}
	for i, t := range testIndex {
		src[t] = sorted[i]
	}
	allyv, err := ally.float64s()
	if err != nil {
		return nil, fmt.Errorf("data: %s: ally: %w", name, err)
	}
	tyv, err := ty.float64s()
	if err != nil {
		return nil, fmt.Errorf("data: %s: ty: %w", name, err)
	}
	row := func(k int) (mat *csr, r int, lm []float64) {
		if k < allx.rows {
			return allx, k, allyv
		}
		r = txRow[k-allx.rows]
		if r < 0 {
			return nil, -1, nil
		}
		return tx, r, tyv
	}
	indptr := make([]int, n+1)
	var indices []int
	var values []float32
	labels := make([]int, n)
	for v := 0; v < n; v++ {
		mat, r, lm := row(src[v])
		if mat != nil {
			a, b := mat.indptr[r], mat.indptr[r+1]
			indices = append(indices, mat.indices[a:b]...)
			values = append(values, mat.values[a:b]...)
			labels[v] = argmaxRow(lm[r*nClass : r*nClass+nClass])
		}
		indptr[v+1] = len(indices)
	}
	var es, ed []int
	for u, nb := range adj {
		for _, v := range nb {
			if u < 0 || u >= n || v < 0 || v >= n {
				return nil, fmt.Errorf("data: %s: edge %d-%d with %d nodes: %w", name, u, v, n, ErrCorrupt)
			}
			es, ed = append(es, u), append(ed, v)
		}
	}
	g, err := graph.FromEdges(n, es, ed)
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	g = g.ToUndirected().RemoveSelfLoops()
	nTrain := y.shape[0]
	ds := &Dataset{
		Name:       name,
		Graph:      g,
		Y:          labels,
		TrainIdx:   seq(0, nTrain),
		ValIdx:     seq(nTrain, nTrain+500),
		TestIdx:    sorted,
		numClasses: nClass,
		features:   &csr{rows: n, cols: nFeat, indptr: indptr, indices: indices, values: values},
	}
	ds.setX()
	return ds, nil
}

// argmaxRow returns the column of the first largest entry, as torch.max
// does for one-hot rows (0 for an all-zero row).
func argmaxRow(row []float64) int {
	best := 0
	for c := range row {
		if row[c] > row[best] {
			best = c
		}
	}
	return best
}

func seq(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}
