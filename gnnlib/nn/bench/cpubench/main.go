package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func main() {
	threads := flag.Int("threads", runtime.NumCPU(), "goroutines for the parallel ops (tensor.SetThreads) and GOMAXPROCS")
	reps := flag.Int("reps", 5, "measured epochs per case, at least (more while under -mintime)")
	minTime := flag.Duration("mintime", 2*time.Second, "keep measuring a case until this much time has passed (at most 50 epochs)")
	warmup := flag.Int("warmup", 1, "epochs run before measuring")
	export := flag.String("export", "", "write the synthetic graph as .npy files into this folder")
	only := flag.String("only", "", "comma-separated model or dataset names to run (default all)")
	table := flag.Bool("table", false, "print the comparison table from GO.tsv PYG.tsv [INTERP.txt] instead of measuring")
	batch := flag.Int("batch", 32, "LeNet-5 mini-batch size")
	flag.Parse()

	if *table {
		if flag.NArg() < 2 {
			fmt.Fprintln(os.Stderr, "usage: cpubench -table GO.tsv PYG.tsv [INTERP.txt]")
			os.Exit(2)
		}
		if err := printTable(os.Stdout, flag.Arg(0), flag.Arg(1), flag.Arg(2)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	runtime.GOMAXPROCS(*threads)
	tensor.SetThreads(*threads)
	b := &bencher{reps: *reps, minTime: *minTime, warmup: *warmup, only: splitList(*only), threads: *threads}
	if err := b.run(*export, *batch); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.ToLower(s), ",")
}

type bencher struct {
	reps, warmup, threads int
	minTime               time.Duration
	only                  []string
}

func (b *bencher) wants(names ...string) bool {
	if b.only == nil {
		return true
	}
	for _, n := range names {
		if slices.Contains(b.only, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

// measure runs epoch warmup times, then at least reps times and until
// minTime has passed, and returns the median duration in milliseconds.
func (b *bencher) measure(epoch func()) float64 {
	for i := 0; i < b.warmup; i++ {
		epoch()
	}
	var ms []float64
	start := time.Now()
	for len(ms) < b.reps || (time.Since(start) < b.minTime && len(ms) < 50) {
		t0 := time.Now()
		epoch()
		ms = append(ms, float64(time.Since(t0).Microseconds())/1e3)
	}
	slices.Sort(ms)
	return ms[(len(ms)-1)/2] // the lower middle value, as pyg_bench.py's median_low
}

// nodeTask is a full-batch node classification problem.
type nodeTask struct {
	name   string
	g      *graph.Graph
	x      *tensor.Tensor
	y      []int
	train  []int
	feats  int
	labels int
}

// The synthetic graph: the same stochastic block model as gnnlib/nn's
// BenchmarkEpoch.
const (
	sbmNodes    = 100_000
	sbmClasses  = 10
	sbmFeatures = 128
)

func synthetic() (nodeTask, error) {
	sizes := make([]int, sbmClasses)
	for i := range sizes {
		sizes[i] = sbmNodes / sbmClasses
	}
	g, x, y, err := graph.SBM(graph.SBMOptions{Sizes: sizes, PIn: 8.0 / (sbmNodes / sbmClasses), POut: 2.0 / sbmNodes,
		Features: sbmFeatures, Signal: 1, Seed: 1})
	if err != nil {
		return nodeTask{}, fmt.Errorf("cpubench: %w", err)
	}
	var train []int
	for v := 0; v < sbmNodes; v += 10 {
		train = append(train, v)
	}
	return nodeTask{name: "sbm100k", g: g, x: tensor.Wrap(x, sbmNodes, sbmFeatures), y: y, train: train,
		feats: sbmFeatures, labels: sbmClasses}, nil
}

// exportTask writes t's graph (CSR by destination), features, labels and
// training nodes as .npy files into dir.
func exportTask(dir string, t nodeTask) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cpubench: %w", err)
	}
	files := []struct {
		name, descr string
		shape       []int
		data        any
	}{
		{"indptr.npy", "<i8", []int{len(t.g.Indptr)}, int64s(t.g.Indptr)},
		{"indices.npy", "<i8", []int{len(t.g.Indices)}, int64s(t.g.Indices)},
		{"x.npy", "<f4", []int{t.g.NumNodes(), t.feats}, t.x.Data()},
		{"y.npy", "<i8", []int{len(t.y)}, int64s(t.y)},
		{"train.npy", "<i8", []int{len(t.train)}, int64s(t.train)},
	}
	for _, f := range files {
		if err := writeNPY(filepath.Join(dir, f.name), f.descr, f.shape, f.data); err != nil {
			return err
		}
	}
	return nil
}

func (b *bencher) report(model, dataset string, ms float64, note string) {
	fmt.Printf("gnnlab\t%s\t%s\t%.3f\t%s\n", model, dataset, ms, note)
}

func (b *bencher) run(export string, batch int) error {
	var tasks []nodeTask
	if b.wants("cora", "gcn", "graphsage", "gat") {
		ds, err := data.Planetoid("cora")
		if err != nil {
			return fmt.Errorf("cpubench: %w", err)
		}
		ds.NormalizeFeatures()
		tasks = append(tasks, nodeTask{name: "cora", g: ds.Graph, x: ds.X, y: ds.Y, train: ds.TrainIdx,
			feats: ds.NumFeatures(), labels: ds.NumClasses()})
	}
	if export != "" || b.wants("sbm100k", "gcn", "graphsage", "gat") {
		t, err := synthetic()
		if err != nil {
			return err
		}
		if export != "" {
			if err := exportTask(export, t); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "cpubench: wrote %s (%d nodes, %d edges)\n", export, t.g.NumNodes(), t.g.NumEdges())
		}
		if b.wants("sbm100k", "gcn", "graphsage", "gat") {
			tasks = append(tasks, t)
		}
	}
	models := []struct {
		name  string
		build func(t nodeTask) nn.GraphLayer
	}{
		{"GCN", func(t nodeTask) nn.GraphLayer { return nn.NewGCN(t.feats, 16, t.labels) }},
		{"GraphSAGE", func(t nodeTask) nn.GraphLayer { return nn.NewGraphSAGE(t.feats, 64, t.labels, "mean") }},
		{"GAT", func(t nodeTask) nn.GraphLayer { return nn.NewGAT(t.feats, 8, 8, t.labels) }},
	}
	for _, t := range tasks {
		for _, m := range models {
			if !b.wants(m.name, t.name) {
				continue
			}
			nn.Seed(1)
			model := m.build(t)
			opt := nn.NewAdam(model.Params(), 0.01, 5e-4)
			model.SetTraining(true)
			ms := b.measure(func() {
				loss := nn.CrossEntropy(model.Forward(t.g, t.x), t.y, t.train)
				opt.ZeroGrad()
				loss.Backward()
				opt.Step()
			})
			b.report(m.name, t.name, ms, fmt.Sprintf("nodes=%d edges=%d", t.g.NumNodes(), t.g.NumEdges()))
		}
	}
	if b.wants("lenet5", "mnist") {
		s, err := data.MNIST("test")
		if err != nil {
			return fmt.Errorf("cpubench: %w", err)
		}
		nn.Seed(1)
		model := nn.NewLeNet5()
		opt := nn.NewAdam(model.Params(), 2e-3, 0)
		rng := tensor.NewRNG(1)
		idx := make([]int, 8000)
		for i := range idx {
			idx[i] = i
		}
		// An epoch takes seconds: half the repetitions, at least one.
		long := *b
		long.reps = max(1, (b.reps+1)/2)
		ms := long.measure(func() { lenetEpoch(model, opt, s.X, s.Y, idx, batch, rng) })
		b.report("LeNet-5", "mnist8k", ms, fmt.Sprintf("batch=%d", batch))
	}
	return nil
}

// lenetEpoch trains model for one epoch over x[idx] in shuffled
// mini-batches, as gnnlib/nn's LeNet-5 test does.
func lenetEpoch(model *nn.Sequential, opt nn.Optimizer, x *tensor.Tensor, y []int, idx []int, batch int, rng *tensor.RNG) {
	order := append([]int(nil), idx...)
	rng.Shuffle(order)
	model.Train()
	labels := make([]int, 0, batch)
	for lo := 0; lo < len(order); lo += batch {
		rows := order[lo:min(lo+batch, len(order))]
		labels = labels[:0]
		for _, r := range rows {
			labels = append(labels, y[r])
		}
		loss := nn.CrossEntropy(model.Forward(x.IndexSelect(rows)), labels, nil)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
}
