package viz_test

import (
	"bytes"
	"errors"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/cmpimg"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/data/datatest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/prof"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/viz"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata")

// TestMain points the loaders at the shared datasets, offline (datatest).
func TestMain(m *testing.M) { datatest.Main(m) }

// needData skips a test when a shared dataset is missing.
func needData(t *testing.T, err error) {
	t.Helper()
	var fe *data.FileError
	if errors.As(err, &fe) {
		t.Skipf("dataset missing (set GNNLAB_DATA): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// golden compares the PNG rendering of f with testdata/name.png, allowing
// the small differences that anti-aliasing and font rasterisation make
// between machines; -update rewrites the file. On a mismatch the image is
// written beside the golden file as name_got.png.
func golden(t *testing.T, name string, f *viz.Figure) {
	t.Helper()
	got, err := f.PNG()
	if err != nil {
		t.Fatalf("%s: PNG() error: %v", name, err)
	}
	path := filepath.Join("testdata", name+".png")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test ./viz -update to create it)", name, err)
	}
	ok, err := cmpimg.EqualApprox("png", got, want, 0.05)
	if err != nil {
		t.Fatalf("%s: compare: %v", name, err)
	}
	if !ok {
		failed := filepath.Join("testdata", name+"_got.png")
		_ = os.WriteFile(failed, got, 0o644)
		t.Errorf("%s: rendering differs from %s (see %s)", name, path, failed)
	}
	b := f.Render()
	if _, ok := b.Data["image/png"].(string); !ok || b.Text() == "" {
		t.Errorf("%s: Render() = %v, want image/png and text/plain", name, b.Data)
	}
}

func TestGoldenDegreeHistogramCora(t *testing.T) {
	ds, err := data.Planetoid("cora")
	needData(t, err)
	f, err := viz.DegreeHistogram(ds.Graph, viz.DegreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "degree_cora", f)
}

func TestGoldenDegreeHistogramBA(t *testing.T) {
	g, err := graph.BarabasiAlbert(3000, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := viz.DegreeHistogram(g, viz.DegreeOptions{Scale: viz.LogLog, MinDegree: 2})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "degree_ba_loglog", f)
}

func TestGoldenSpeedup(t *testing.T) {
	threads := []float64{1, 2, 4, 8, 16}
	s := []float64{1, 1.85, 3.2, 4.9, 6.4}
	f, err := viz.Speedup(threads, s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "speedup", f)
}

// TestGoldenLinesManyDecades covers a log axis over 28 decades (gradient
// norms of a sigmoid network): round labels, at most about eight, and no
// band of minor ticks.
func TestGoldenLinesManyDecades(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	var y []float64
	for i := range x {
		y = append(y, math.Pow(10, -17+2.8*float64(i)))
	}
	f, err := viz.Lines(x, []viz.Series{{Name: "norm", Y: y}}, viz.LineOptions{Title: "28 decades", XLabel: "layer", YLabel: "norm (log scale)", LogY: true, Markers: true})
	if err != nil {
		t.Fatal(err)
	}
	p := f.Plot()
	ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	labels := 0
	for _, tk := range ticks {
		if tk.Label != "" {
			labels++
			if strings.Contains(tk.Label, "999") || strings.Contains(tk.Label, "000000") {
				t.Errorf("log tick label %q, want a round power of ten", tk.Label)
			}
		}
	}
	if labels > 9 || len(ticks) > 40 {
		t.Errorf("log axis over 28 decades: %d ticks, %d labelled, want at most 40 and 9", len(ticks), labels)
	}
	golden(t, "lines_decades", f)
}

// TestGoldenRooflineTicks covers roofline axes whose decades gonum labels
// with float noise (9.999999999999999e-05).
func TestGoldenRooflineTicks(t *testing.T) {
	f, err := viz.Roofline(35, 10, []viz.RooflinePoint{{Name: "GCNPropagate", Intensity: 0.48, GFLOPs: 0.5}, {Name: "MatMul", Intensity: 47, GFLOPs: 18}, {Name: "CrossEntropy", Intensity: 3e-6, GFLOPs: 8e-8}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ax := range []plot.Axis{f.Plot().X, f.Plot().Y} {
		for _, tk := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
			if strings.Contains(tk.Label, "999") {
				t.Errorf("roofline tick label %q, want a round power of ten", tk.Label)
			}
		}
	}
	golden(t, "roofline_ticks", f)
}

// TestGoldenSpeedupTooFew covers a 2-core machine: no Amdahl fit from 1
// and 2 threads, and the legend says so.
func TestGoldenSpeedupTooFew(t *testing.T) {
	f, err := viz.Speedup([]float64{1, 2}, []float64{1, 1.7})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Description, "no Amdahl fit") {
		t.Errorf("Speedup(1, 2 threads).Description = %q, want it to say there is no fit", f.Description)
	}
	golden(t, "speedup_too_few", f)
}

// syntheticMemory is a profile of three steps with fixed numbers, so the
// golden image does not depend on the machine.
func syntheticMemory() *prof.MemoryProfile {
	m := &prof.MemoryProfile{Baseline: 40 << 20}
	phases := []string{"forward", "backward", "step"}
	ms := time.Millisecond
	var heap uint64 = 40 << 20
	for step := 0; step < 3; step++ {
		for i, ph := range phases {
			t0 := time.Duration(step*30+i*10) * ms
			m.Marks = append(m.Marks, prof.MemoryMark{T: t0, Name: ph})
			for k := 0; k < 10; k++ {
				switch ph {
				case "forward":
					heap += 6 << 20
				case "backward":
					heap += 3 << 20
				case "step":
					heap -= 9 << 20
				}
				s := prof.MemorySample{T: t0 + time.Duration(k)*ms, Heap: heap}
				m.Samples = append(m.Samples, s)
				if heap > m.Peak {
					m.Peak, m.PeakAt = heap, s.T
				}
			}
		}
	}
	m.Duration = 90 * ms
	return m
}

// TestGoldenMemoryLive covers marks that measured the live heap: their
// curve shows over the heap's.
func TestGoldenMemoryLive(t *testing.T) {
	m := syntheticMemory()
	for i := range m.Marks {
		m.Marks[i].Live = uint64(40+[]int{0, 50, 20}[i%3]) << 20 // forward keeps 50 MiB, backward frees 30
	}
	f, err := viz.Memory(m)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "memory_live", f)
}

func TestGoldenMemory(t *testing.T) {
	f, err := viz.Memory(syntheticMemory())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "memory", f)
}

func TestGoldenTrainingCurves(t *testing.T) {
	tc := viz.NewTrainingCurves("loss", "train acc", "val acc")
	for e := 1; e <= 50; e++ {
		x := float64(e)
		if err := tc.Add(x, 2/(1+0.2*x), 1-0.8/(1+0.15*x), 0.95-0.8/(1+0.12*x)); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "training", tc.Figure())
}

func TestGoldenConfusionMatrix(t *testing.T) {
	ds := data.KarateClub()
	// A fixed prediction: the truth with every fifth member flipped.
	pred := append([]int(nil), ds.Y...)
	for i := 0; i < len(pred); i += 5 {
		pred[i] = 1 - pred[i]
	}
	f, err := viz.ConfusionMatrix(pred, ds.Y, []string{"Mr. Hi", "Officer"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "confusion_karate", f)
}

func TestGoldenEmbedding(t *testing.T) {
	_, x, labels, err := graph.SBM(graph.SBMOptions{Sizes: []int{100, 100, 100}, PIn: 0.05, POut: 0.005, Features: 16, Signal: 1.5, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	f, err := viz.Embedding(tensor.FromSlice(x, 300, 16), labels)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "embedding_sbm", f)
}

func TestGoldenDrawGraphKarate(t *testing.T) {
	ds := data.KarateClub()
	f, err := viz.DrawGraph(ds.Graph, ds.Y, viz.LayoutOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "graph_karate", f)
}

func TestGoldenImageGridMNIST(t *testing.T) {
	set, err := data.MNIST("test")
	needData(t, err)
	f, err := viz.ImageGrid(set.X.Narrow(0, 0, 32), 8)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "mnist_grid", f)
}

// TestGoldenImageGridSigned covers tiles of both signs and different
// scales: one symmetric scale for all, 0 mid grey, and a colour bar.
func TestGoldenImageGridSigned(t *testing.T) {
	const n, side = 4, 9
	vals := make([]float32, n*side*side)
	for k := 0; k < n; k++ {
		for i := 0; i < side; i++ {
			for j := 0; j < side; j++ {
				// a horizontal ramp, scaled 1, 2, 3 and 4 times, the last tile flipped
				v := float32(k+1) * float32(j-side/2) / float32(side/2)
				if k == n-1 {
					v = -v
				}
				vals[(k*side+i)*side+j] = v
			}
		}
	}
	f, err := viz.ImageGridData(vals, n, side, side, 4)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "grid_signed", f)
}

func TestGoldenGroupedBars(t *testing.T) {
	f, err := viz.GroupedBars([]string{"accuracy", "size (rel.)", "time (rel.)"}, []string{"FP32", "INT8"},
		[][]float64{{0.815, 1, 1}, {0.809, 0.25, 0.55}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bars", f)
}

// TestGoldenGroupedBarsZoom covers accuracies that differ by tenths of a
// point: the axis starts below the shortest bar.
func TestGoldenGroupedBarsZoom(t *testing.T) {
	f, err := viz.GroupedBars([]string{"FP32", "INT8 PTQ", "W4A8 PTQ", "W4A8 QAT"}, []string{"mean of 10 seeds"},
		[][]float64{{0.816, 0.815, 0.814, 0.817}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bars_zoom", f)
}

func TestGoldenRoofline(t *testing.T) {
	f, err := viz.Roofline(100, 20, []viz.RooflinePoint{
		{Name: "MatMul", Intensity: 30, GFLOPs: 60},
		{Name: "SpMM", Intensity: 0.2, GFLOPs: 2.5},
		{Name: "ReLU", Intensity: 0.125, GFLOPs: 1.1},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "roofline", f)
}

func syntheticOps() *prof.OpReport {
	ms := time.Millisecond
	r := &prof.OpReport{Wall: 20 * ms, Events: 40, Rows: []prof.OpRow{
		{Op: "MatMul", Backward: true, Calls: 4, Time: 7 * ms, FLOPs: 4e8, Bytes: 2e7},
		{Op: "MatMul", Calls: 2, Time: 5 * ms, FLOPs: 2e8, Bytes: 1e7},
		{Op: "SpMM", Calls: 2, Time: 3 * ms, FLOPs: 1e7, Bytes: 4e7},
		{Op: "ReLU", Calls: 1, Time: 1 * ms, FLOPs: 1e6, Bytes: 8e6},
		{Op: "CrossEntropy", Backward: true, Calls: 1, Time: ms / 2, FLOPs: 1e5, Bytes: 1e6},
	}}
	for i := range r.Rows {
		r.OpTime += r.Rows[i].Time
		r.Rows[i].Share = float64(r.Rows[i].Time) / float64(r.Wall)
	}
	return r
}

func TestGoldenOpProfile(t *testing.T) {
	f, err := viz.OpProfile(syntheticOps(), 0)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "ops", f)
	tab := viz.ProfileTable(syntheticOps()).Render()
	if h, _ := tab.Data["text/html"].(string); !strings.Contains(h, "<td style=\"text-align:left\">MatMul (backward)</td>") {
		t.Errorf("ProfileTable HTML lacks the MatMul (backward) row:\n%s", h)
	}
}

func TestSaveFormats(t *testing.T) {
	f, err := viz.Speedup([]float64{1, 2, 4}, []float64{1, 1.9, 3.5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ext := range []string{"png", "svg", "pdf"} {
		path := filepath.Join(dir, "speedup."+ext)
		if err := f.Save(path); err != nil {
			t.Errorf("Save(%q) error: %v", path, err)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			t.Errorf("Save(%q) wrote %d bytes, %v", path, len(b), err)
		}
	}
	if err := f.Save(filepath.Join(dir, "x.unknown")); err == nil {
		t.Errorf("Save(x.unknown) = nil, want an error")
	}
	p, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(p))
	if err != nil {
		t.Fatal(err)
	}
	// 6×4 inches at 192 dpi.
	if b := img.Bounds(); b.Dx() != 1152 || b.Dy() != 768 {
		t.Errorf("PNG size = %v, want 1152×768", b.Size())
	}
	meta, _ := f.Render().Metadata["image/png"].(map[string]any)
	if meta["width"] != 576 || meta["height"] != 384 {
		t.Errorf("Render() metadata = %v, want width 576, height 384 (CSS pixels)", meta)
	}
	svg, err := f.SVG()
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("SVG() = %d bytes, %v; want an SVG document", len(svg), err)
	}
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   func() error
	}{
		{"ConfusionMatrix lengths", func() error { _, err := viz.ConfusionMatrix([]int{1}, []int{1, 0}, nil); return err }},
		{"ConfusionMatrix names", func() error { _, err := viz.ConfusionMatrix([]int{2}, []int{0}, []string{"a"}); return err }},
		{"Embedding labels", func() error { _, err := viz.EmbeddingData(make([]float32, 6), 3, 2, []int{0}); return err }},
		{"ImageGridData size", func() error { _, err := viz.ImageGridData(make([]float32, 5), 1, 2, 2, 1); return err }},
		{"GroupedBars rows", func() error {
			_, err := viz.GroupedBars([]string{"a"}, []string{"x", "y"}, [][]float64{{1}})
			return err
		}},
		{"Roofline peaks", func() error { _, err := viz.Roofline(0, 1, nil); return err }},
		{"Memory empty", func() error { _, err := viz.Memory(&prof.MemoryProfile{}); return err }},
		{"Degree empty", func() error { _, err := viz.DegreeHistogram(viz.Degrees{}, viz.DegreeOptions{}); return err }},
	}
	for _, tt := range tests {
		if err := tt.fn(); !errors.Is(err, viz.ErrData) {
			t.Errorf("%s: error = %v, want ErrData", tt.name, err)
		}
	}
	if _, err := viz.Speedup([]float64{1, 2}, []float64{1, 0}); !errors.Is(err, viz.ErrData) {
		t.Errorf("Speedup(zero speedup) error = %v, want ErrData", err)
	}
	if f, err := viz.Speedup([]float64{1}, []float64{1}); err != nil || !strings.Contains(f.Description, "no Amdahl fit") {
		t.Errorf("Speedup(one point) = %v, %v; want a plot without a fit", f, err)
	}
}

func TestGoldenDrawGraphCora(t *testing.T) {
	if testing.Short() {
		t.Skip("lays out 2,708 nodes")
	}
	ds, err := data.Planetoid("cora")
	needData(t, err)
	f, err := viz.DrawGraph(ds.Graph, ds.Y, viz.LayoutOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "graph_cora", f)
}

func TestLayoutInUnitSquare(t *testing.T) {
	g, err := graph.BarabasiAlbert(500, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	a := viz.Layout(g, viz.LayoutOptions{Seed: 5, Iterations: 50})
	b := viz.Layout(g, viz.LayoutOptions{Seed: 5, Iterations: 50})
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("Layout with one seed differs at node %d: %v, %v", i, a[i], b[i])
		}
		if a[i].X < 0 || a[i].X > 1 || a[i].Y < 0 || a[i].Y > 1 {
			t.Errorf("Layout node %d at %v, outside the unit square", i, a[i])
		}
	}
}
