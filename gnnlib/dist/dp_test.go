package dist

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// sbm returns a small labelled graph with informative features.
func sbm(t testing.TB) (*graph.Graph, *tensor.Tensor, []int) {
	g, x, y, err := graph.SBM(graph.SBMOptions{Sizes: []int{60, 60, 60}, PIn: 0.08, POut: 0.01, Features: 12, Signal: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return g, tensor.FromSlice(x, g.NumNodes(), 12), y
}

// trainSAGE trains a GraphSAGE (no dropout) for steps steps of the global
// batch on n in-process ranks, starting from init's parameters (rank 0's
// replica gets them, the others start elsewhere and must receive them),
// and returns each rank's final parameters and the losses of rank 0.
func trainSAGE(t *testing.T, n, batch, steps int, init []*tensor.Tensor, adam bool) ([][][]float32, []float32) {
	return trainSAGEOn(t, "local", n, batch, steps, init, adam)
}

// trainSAGEOn is trainSAGE over communicators of a kind (see group).
func trainSAGEOn(t *testing.T, kind string, n, batch, steps int, init []*tensor.Tensor, adam bool) ([][][]float32, []float32) {
	g, x, y := sbm(t)
	seeds := make([]int, 0, g.NumNodes())
	for v := 0; v < g.NumNodes(); v += 2 {
		seeds = append(seeds, v)
	}
	params := make([][][]float32, n)
	var losses []float32
	err := errors.Join(group(t, kind, n, func(c Communicator) error {
		m := nn.NewGraphSAGE(12, 16, 3, "mean")
		m.Dropout = 0
		if c.Rank() == 0 {
			for i, p := range m.Params() {
				copy(p.Data(), init[i].Data())
			}
		}
		dp, err := NewDataParallelBuckets(m, c, 1024) // several buckets
		if err != nil {
			return err
		}
		if nb := len(dp.Buckets()); nb < 2 {
			return fmt.Errorf("%d gradient buckets, want several", nb)
		}
		var opt nn.Optimizer = nn.NewSGD(m.Params(), 0.05, 0.5, 0)
		if adam {
			opt = nn.NewAdam(m.Params(), 0.01, 0)
		}
		ld, err := dp.NewLoader(g, x, y, seeds, data.NeighborLoaderOptions{BatchSize: batch, Fanouts: []int{-1, -1}})
		if err != nil {
			return err
		}
		done := 0
		for done < steps {
			it := ld.Iter()
			for done < steps && it.Next() {
				b := it.Batch()
				l, err := dp.Step(opt, func() *tensor.Tensor {
					return nn.CrossEntropy(m.ForwardBlocks(b.Graphs(), b.X), b.Y, nil)
				})
				if err != nil {
					it.Close()
					return err
				}
				if c.Rank() == 0 {
					losses = append(losses, l)
				}
				done++
			}
			it.Close()
			if err := it.Err(); err != nil {
				return err
			}
		}
		for _, p := range m.Params() {
			params[c.Rank()] = append(params[c.Rank()], append([]float32(nil), p.Data()...))
		}
		return nil
	})...)
	if err != nil {
		t.Fatal(err)
	}
	return params, losses
}

// TestDataParallelMatchesOneRank checks the point of data parallelism:
// two ranks each training on half of every global batch end with the
// parameters one rank training on the whole batches ends with, and the
// two replicas stay equal.
func TestDataParallelMatchesOneRank(t *testing.T) {
	for _, tc := range []struct {
		kind string
		adam bool
	}{{"local", false}, {"local", true}, {"tcp", true}} {
		t.Run(fmt.Sprintf("%s/adam=%t", tc.kind, tc.adam), func(t *testing.T) {
			adam := tc.adam
			nn.Seed(11)
			ref := nn.NewGraphSAGE(12, 16, 3, "mean")
			const batch, steps = 16, 8 // 90 seeds: 6 batches an epoch, so two epochs
			one, l1 := trainSAGE(t, 1, batch, steps, ref.Params(), adam)
			two, l2 := trainSAGEOn(t, tc.kind, 2, batch, steps, ref.Params(), adam)
			moved := 0.0
			for i := range one[0] {
				for j, v := range one[0][i] {
					moved = math.Max(moved, math.Abs(float64(v-ref.Params()[i].Data()[j])))
					for r := range 2 {
						if d := math.Abs(float64(two[r][i][j] - v)); d > 1e-4 {
							t.Fatalf("parameter %d value %d: rank %d of 2 has %v, one rank %v", i, j, r, two[r][i][j], v)
						}
					}
					if two[0][i][j] != two[1][i][j] {
						t.Fatalf("parameter %d value %d: replicas differ: %v, %v", i, j, two[0][i][j], two[1][i][j])
					}
				}
			}
			if moved < 1e-3 {
				t.Fatalf("training moved the parameters by at most %v: the test would not see a wrong gradient", moved)
			}
			for s := range l1 {
				if d := math.Abs(float64(l1[s] - l2[s])); d > 1e-4 {
					t.Errorf("step %d: loss %v on two ranks, %v on one", s, l2[s], l1[s])
				}
			}
		})
	}
}

func TestShardSeeds(t *testing.T) {
	seeds := []int{10, 11, 12, 13, 14, 15, 16}
	for _, tc := range []struct {
		rank, size int
		want       []int
	}{{0, 1, seeds}, {0, 2, []int{10, 12, 14}}, {1, 2, []int{11, 13, 15}}, {2, 3, []int{12, 15}}} {
		got := ShardSeeds(seeds, tc.rank, tc.size)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ShardSeeds(%v, %d, %d) = %v, want %v", seeds, tc.rank, tc.size, got, tc.want)
		}
	}
}

func TestBucketer(t *testing.T) {
	ps := []*tensor.Tensor{tensor.Zeros(10), tensor.Zeros(300), tensor.Zeros(5), tensor.Zeros(5)}
	b, err := NewBucketer(ps, nil, 100) // 100 bytes: 25 values
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(b.Buckets()), "[[3 2] [1] [0]]"; got != want {
		t.Errorf("buckets of sizes 10, 300, 5, 5 at 25 values = %s, want %s", got, want)
	}
	if _, err := NewBucketer(ps, nil, -1); err == nil {
		t.Error("NewBucketer with a negative size: no error")
	}
	// Gradients are reduced, a missing one as zeros.
	err = Spawn(2, func(c Communicator) error {
		ps := []*tensor.Tensor{tensor.Zeros(3).SetRequiresGrad(true), tensor.Zeros(40).SetRequiresGrad(true)}
		ps[1].SetGrad(tensor.Full(float32(c.Rank()+1), 40))
		if c.Rank() == 1 {
			ps[0].SetGrad(tensor.FromSlice([]float32{2, 4, 6}))
		}
		b, err := NewBucketer(ps, c, 64)
		if err != nil {
			return err
		}
		if err := b.AllReduce(Mean); err != nil {
			return err
		}
		if got := fmt.Sprint(ps[0].Grad().Data()); got != "[1 2 3]" {
			return fmt.Errorf("rank %d: reduced gradient %s, want [1 2 3]", c.Rank(), got)
		}
		for _, v := range ps[1].Grad().Data() {
			if v != 1.5 {
				return fmt.Errorf("rank %d: reduced gradient value %v, want 1.5", c.Rank(), v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNewLoaderBatch(t *testing.T) {
	g, x, y := sbm(t)
	cs, _ := NewLocal(2)
	dp := &DataParallel{Comm: cs[1]}
	_, err := dp.NewLoader(g, x, y, []int{1, 2, 3}, data.NeighborLoaderOptions{BatchSize: 3, Fanouts: []int{2}})
	if !errors.Is(err, data.ErrLoader) {
		t.Errorf("global batch 3 on 2 ranks: %v, want data.ErrLoader", err)
	}
}
