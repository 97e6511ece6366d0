package data

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// tuURL is where the TU datasets are published (TUDataset, Morris et al.
// 2020), one NAME.zip per dataset; a variable so that tests can serve it.
var tuURL = "https://www.chrsmrrs.com/graphkerneldatasets/"

// GraphDataset is a graph-classification dataset: many small graphs, each
// with node features and one label, as PyG's TUDataset.
type GraphDataset struct {
	// Name is the dataset's name, such as "MUTAG".
	Name string
	// Graphs holds the graphs, their nodes numbered from 0 each, edges
	// deduplicated and without self-loops.
	Graphs []*graph.Graph
	// X holds each graph's node features, a dense [nodes, NumFeatures()]
	// tensor: the node attributes (if the dataset has them) followed by
	// the one-hot node labels (if it has them). A dataset with neither
	// gets a single constant feature 1 per node.
	X []*tensor.Tensor
	// Y holds each graph's class in [0, NumClasses): the file's labels
	// renumbered in increasing order, as PyG does (−1, 1 become 0, 1).
	Y []int
	// NodeLabels holds each graph's node labels (first column of
	// node_labels, shifted to start at 0), nil without that file.
	NodeLabels [][]int

	numClasses, numFeatures int
}

// Len returns the number of graphs.
func (d *GraphDataset) Len() int { return len(d.Graphs) }

// NumClasses returns the number of graph classes.
func (d *GraphDataset) NumClasses() int { return d.numClasses }

// NumFeatures returns the width of a node feature row.
func (d *GraphDataset) NumFeatures() int { return d.numFeatures }

// String summarises the dataset.
func (d *GraphDataset) String() string {
	nodes, edges := 0, 0
	for _, g := range d.Graphs {
		nodes += g.NumNodes()
		edges += g.NumEdges()
	}
	return fmt.Sprintf("%s(graphs=%d, nodes=%d, edges=%d, features=%d, classes=%d)",
		d.Name, d.Len(), nodes, edges, d.numFeatures, d.numClasses)
}

// GraphBatch is several graphs of a GraphDataset joined into one
// block-diagonal graph (graph.Batch), ready for a GNN and a global pooling
// (graph.GlobalMeanPool, or nn.GlobalMeanPool with autograd).
type GraphBatch struct {
	// Graph is the block-diagonal union of the graphs.
	Graph *graph.Graph
	// X stacks the graphs' node features.
	X *tensor.Tensor
	// Batch[v] is the position in the batch of node v's graph.
	Batch []int
	// Y holds the batch's graph labels in order.
	Y []int
	// NumGraphs is the number of graphs in the batch.
	NumGraphs int
}

// Batch joins the graphs idx into one GraphBatch. An index out of range
// panics.
func (d *GraphDataset) Batch(idx []int) *GraphBatch {
	gs := make([]*graph.Graph, len(idx))
	xs := make([]*tensor.Tensor, len(idx))
	y := make([]int, len(idx))
	for i, k := range idx {
		gs[i], xs[i], y[i] = d.Graphs[k], d.X[k], d.Y[k]
	}
	g, batch := graph.Batch(gs)
	// The features need no gradient, so Concat records no op.
	return &GraphBatch{Graph: g, X: tensor.Concat(0, xs...), Batch: batch, Y: y, NumGraphs: len(idx)}
}

var tuName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// TUDataset loads the TU graph-classification dataset name (such as
// "MUTAG", "PROTEINS", "IMDB-BINARY"; the name is case-sensitive, as the
// files are). It reads the text files LoadTU describes from
// $GNNLAB_DATA/tu/<name>, $GNNLAB_DATA/<name> or $GNNLAB_DATA/<name>/raw
// (where PyG keeps them), else from CacheDir()/tu/<name>; else it
// downloads <name>.zip from the TU datasets' site (chrsmrrs.com) and
// unpacks it there, unless GNNLAB_OFFLINE is set. A dataset not found
// gives a *FileError that names <name>_A.txt and where it was looked for.
func TUDataset(name string) (*GraphDataset, error) {
	if !tuName.MatchString(name) {
		return nil, fmt.Errorf("data: TUDataset(%q): not a dataset name: %w", name, ErrUnknownDataset)
	}
	s := source{
		name:    name + "_A.txt",
		subdirs: []string{filepath.Join("tu", name), name, filepath.Join(name, "raw")},
		cache:   filepath.Join("tu", name),
	}
	dirs, cache := s.searchDirs()
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, s.name)); err == nil {
			return LoadTU(d, name)
		}
	}
	fe := &FileError{Name: s.name, Looked: dirs, Err: fs.ErrNotExist}
	if cache == "" || os.Getenv("GNNLAB_OFFLINE") != "" {
		return nil, fe
	}
	fe.URL = tuURL + name + ".zip"
	zipPath := filepath.Join(filepath.Dir(cache), name+".zip")
	if err := download(zipPath, fe.URL, ""); err != nil {
		fe.Err = err
		return nil, fe
	}
	if err := unzipTU(zipPath, cache, name); err != nil {
		return nil, &FileError{Name: name + ".zip", Path: zipPath, Err: err}
	}
	return LoadTU(cache, name)
}

// unzipTU extracts the dataset's text files from the archive (which holds
// them under a folder <name>/) flat into dir; other entries are skipped,
// so no entry can write outside dir.
func unzipTU(zipPath, dir, name string) error {
	z, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	defer z.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range z.File {
		base := filepath.Base(f.Name)
		if f.FileInfo().IsDir() || !strings.HasPrefix(base, name+"_") || !strings.HasSuffix(base, ".txt") {
			continue
		}
		if err := extract(f, filepath.Join(dir, base)); err != nil {
			return err
		}
	}
	return nil
}

func extract(f *zip.File, path string) error {
	r, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w: %w", f.Name, ErrCorrupt, err)
	}
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".unzip-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w: %w", f.Name, ErrCorrupt, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// LoadTU reads the TU dataset name from the folder dir, in the format of
// the TU datasets (Morris et al.), all node and graph ids counted from 1:
//
//   - <name>_A.txt: one edge "u, v" per line over all graphs' nodes;
//   - <name>_graph_indicator.txt: line v holds the graph of node v;
//   - <name>_graph_labels.txt: line g holds the label of graph g;
//   - optional <name>_node_labels.txt: one integer label per node (more
//     comma-separated columns are one-hot encoded side by side);
//   - optional <name>_node_attributes.txt: comma-separated numbers per node.
//
// As PyG's TUDataset it removes self-loops and duplicate edges, renumbers
// the graph labels and one-hot encodes the node labels (see
// GraphDataset). A missing required file gives a *FileError for which
// errors.Is(err, fs.ErrNotExist) holds; a malformed line, an edge between
// two graphs or files that disagree on the number of nodes or graphs give
// a *FileError wrapping ErrCorrupt that names the file and the line.
func LoadTU(dir, name string) (*GraphDataset, error) {
	read := func(kind string, optional bool) ([][]float64, error) {
		file := name + "_" + kind + ".txt"
		p := filepath.Join(dir, file)
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) && optional {
			return nil, nil
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, &FileError{Name: file, Looked: []string{dir}, Err: err}
			}
			return nil, &FileError{Name: file, Path: p, Err: err}
		}
		defer f.Close()
		rows, err := readNumbers(f)
		if err != nil {
			return nil, &FileError{Name: file, Path: p, Err: err}
		}
		return rows, nil
	}
	corrupt := func(kind string, format string, args ...any) error {
		file := name + "_" + kind + ".txt"
		return &FileError{Name: file, Path: filepath.Join(dir, file), Err: fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrCorrupt)}
	}
	ind, err := read("graph_indicator", false)
	if err != nil {
		return nil, err
	}
	glab, err := read("graph_labels", false)
	if err != nil {
		return nil, err
	}
	adj, err := read("A", false)
	if err != nil {
		return nil, err
	}
	nlab, err := read("node_labels", true)
	if err != nil {
		return nil, err
	}
	nattr, err := read("node_attributes", true)
	if err != nil {
		return nil, err
	}

	numGraphs := len(glab)
	n := len(ind)
	graphOf := make([]int, n)
	first := make([]int, numGraphs+1) // first node of each graph
	count := make([]int, numGraphs)
	for v, row := range ind {
		g, ok := intCell(row, 1)
		if !ok || g < 1 || g > numGraphs {
			return nil, corrupt("graph_indicator", "line %d: graph %v of %d graphs", v+1, row, numGraphs)
		}
		if v > 0 && g-1 < graphOf[v-1] {
			return nil, corrupt("graph_indicator", "line %d: graph %d after graph %d (nodes must be listed graph by graph)", v+1, g, graphOf[v-1]+1)
		}
		graphOf[v] = g - 1
		count[g-1]++
	}
	for g := range count {
		first[g+1] = first[g] + count[g]
	}
	src := make([][]int, numGraphs)
	dst := make([][]int, numGraphs)
	for i, row := range adj {
		u, ok := intCell(row, 2)
		if !ok || row[1] != float64(int(row[1])) {
			return nil, corrupt("A", "line %d: %v is not an edge \"u, v\"", i+1, row)
		}
		v := int(row[1])
		if u < 1 || u > n || v < 1 || v > n {
			return nil, corrupt("A", "line %d: edge %d, %d with %d nodes", i+1, u, v, n)
		}
		g := graphOf[u-1]
		if graphOf[v-1] != g {
			return nil, corrupt("A", "line %d: edge %d, %d joins graphs %d and %d", i+1, u, v, g+1, graphOf[v-1]+1)
		}
		src[g] = append(src[g], u-1-first[g])
		dst[g] = append(dst[g], v-1-first[g])
	}

	d := &GraphDataset{Name: name, Graphs: make([]*graph.Graph, numGraphs), X: make([]*tensor.Tensor, numGraphs), Y: make([]int, numGraphs)}
	for g := range d.Graphs {
		gr, err := graph.FromEdges(count[g], src[g], dst[g])
		if err != nil {
			return nil, corrupt("A", "graph %d: %v", g+1, err)
		}
		d.Graphs[g] = gr.RemoveSelfLoops().Coalesce()
	}

	labels := make([]int, numGraphs)
	for g, row := range glab {
		l, ok := intCell(row, 1)
		if !ok {
			return nil, corrupt("graph_labels", "line %d: %v is not an integer label", g+1, row)
		}
		labels[g] = l
	}
	classes := slices.Compact(slices.Sorted(slices.Values(labels)))
	d.numClasses = len(classes)
	for g, l := range labels {
		d.Y[g], _ = slices.BinarySearch(classes, l)
	}

	// Node features: attributes, then one one-hot block per label column.
	var attrW int
	if nattr != nil {
		if len(nattr) != n {
			return nil, corrupt("node_attributes", "%d lines for %d nodes", len(nattr), n)
		}
		attrW = len(nattr[0])
		for v, row := range nattr {
			if len(row) != attrW {
				return nil, corrupt("node_attributes", "line %d: %d values, line 1 has %d", v+1, len(row), attrW)
			}
		}
	}
	var labW []int // one-hot width per label column
	var labMin []int
	if nlab != nil {
		if len(nlab) != n {
			return nil, corrupt("node_labels", "%d lines for %d nodes", len(nlab), n)
		}
		cols := len(nlab[0])
		labMin = make([]int, cols)
		labMax := make([]int, cols)
		for v, row := range nlab {
			if len(row) != cols {
				return nil, corrupt("node_labels", "line %d: %d values, line 1 has %d", v+1, len(row), cols)
			}
			for c := range row {
				l, ok := intCell(row[c:], 1)
				if !ok {
					return nil, corrupt("node_labels", "line %d: %v is not an integer label", v+1, row)
				}
				if v == 0 || l < labMin[c] {
					labMin[c] = l
				}
				if v == 0 || l > labMax[c] {
					labMax[c] = l
				}
			}
		}
		for c := range labMin {
			labW = append(labW, labMax[c]-labMin[c]+1)
		}
		d.NodeLabels = make([][]int, numGraphs)
	}
	width := attrW
	for _, w := range labW {
		width += w
	}
	constant := width == 0
	if constant {
		width = 1
	}
	d.numFeatures = width
	for g := range d.X {
		rows := make([]float32, count[g]*width)
		if nlab != nil {
			d.NodeLabels[g] = make([]int, count[g])
		}
		for i := 0; i < count[g]; i++ {
			v := first[g] + i
			row := rows[i*width : i*width+width]
			if constant {
				row[0] = 1
				continue
			}
			for j := 0; j < attrW; j++ {
				row[j] = float32(nattr[v][j])
			}
			off := attrW
			for c, w := range labW {
				l := int(nlab[v][c]) - labMin[c]
				row[off+l] = 1
				off += w
			}
			if nlab != nil {
				d.NodeLabels[g][i] = int(nlab[v][0]) - labMin[0]
			}
		}
		d.X[g] = tensor.Wrap(rows, count[g], width)
	}
	return d, nil
}

// intCell returns row[0] as an int if row has want or more cells and its
// first is a whole number.
func intCell(row []float64, want int) (int, bool) {
	if len(row) < want || row[0] != float64(int(row[0])) {
		return 0, false
	}
	return int(row[0]), true
}

// readNumbers parses lines of comma-separated numbers; blank lines are
// skipped.
func readNumbers(r io.Reader) ([][]float64, error) {
	var rows [][]float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		parts := strings.Split(t, ",")
		row := make([]float64, len(parts))
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %q is not a number: %w", line, p, ErrCorrupt)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}
