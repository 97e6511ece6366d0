package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// shuffled returns g with its nodes renumbered at random, and x's rows
// moved with them.
func shuffled(t *testing.T, g *graph.Graph, x *tensor.Tensor) (*graph.Graph, *tensor.Tensor) {
	perm := rand.New(rand.NewPCG(5, 5)).Perm(g.NumNodes())
	pg, err := g.Permute(perm)
	if err != nil {
		t.Fatal(err)
	}
	f := x.Size(1)
	px := make([]float32, len(x.Data()))
	graph.PermuteRows(px, x.Data(), f, perm)
	return pg, tensor.FromSlice(px, g.NumNodes(), f)
}

func TestPartitions(t *testing.T) {
	g, x, _ := sbm(t)
	g, _ = shuffled(t, g, x)
	n := g.NumNodes()
	for _, k := range []int{1, 2, 3, 4} {
		rp, err := RangePartition(n, k)
		if err != nil {
			t.Fatal(err)
		}
		bp, err := BFSPartition(g, k)
		if err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]*Partition{"range": rp, "bfs": bp} {
			for part := range k {
				lo, hi := chunk(n, k, part)
				if got := len(p.Nodes(part)); got != hi-lo {
					t.Errorf("%s k=%d: part %d has %d nodes, want %d", name, k, part, got, hi-lo)
				}
			}
		}
		if k > 1 && bp.EdgeCut(g) >= rp.EdgeCut(g) {
			t.Errorf("k=%d: BFS edge cut %d, not below the range cut %d of a randomly numbered graph", k, bp.EdgeCut(g), rp.EdgeCut(g))
		}
		t.Logf("k=%d: edge cut of %d edges: range %d, BFS %d", k, g.NumEdges(), rp.EdgeCut(g), bp.EdgeCut(g))
	}
	if _, err := RangePartition(3, 4); err == nil {
		t.Error("RangePartition(3, 4): no error")
	}
}

// TestPartitionedGCN checks that a two-layer GCN computed part by part,
// with the halo features exchanged through the communicator before each
// layer, gives the unpartitioned forward pass, and that ExchangeGrad
// gives the unpartitioned input gradient of a layer.
func TestPartitionedGCN(t *testing.T) {
	g0, x0, _ := sbm(t)
	g, x := shuffled(t, g0, x0)
	nn.Seed(2)
	m := nn.NewGCN(12, 16, 3)
	m.Dropout = 0
	want := m.Forward(g, x)
	wantData := want.Data()
	// Input gradient of a single propagation with a random readout.
	r := tensor.Randn(9, g.NumNodes(), 12)
	xg := x.Clone().SetRequiresGrad(true)
	nn.SpMM(g.GCNNorm(), xg).Mul(r).Sum().Backward()
	wantGrad := xg.Grad().Data()
	for _, k := range []int{1, 2, 3} {
		for _, kind := range []string{"range", "bfs"} {
			t.Run(fmt.Sprintf("%s/k=%d", kind, k), func(t *testing.T) {
				p, _ := RangePartition(g.NumNodes(), k)
				if kind == "bfs" {
					p, _ = BFSPartition(g, k)
				}
				err := Spawn(k, func(c Communicator) error {
					s, err := p.Shard(g, c.Rank())
					if err != nil {
						return err
					}
					if k > 1 && len(s.Halo) == 0 {
						return fmt.Errorf("part %d has no halo: the test would not exercise the exchange", s.Part)
					}
					rows := func(t *tensor.Tensor, nodes []int) *tensor.Tensor {
						f := t.Size(1)
						out := make([]float32, 0, len(nodes)*f)
						for _, v := range nodes {
							out = append(out, t.Data()[v*f:(v+1)*f]...)
						}
						return tensor.FromSlice(out, len(nodes), f)
					}
					// No NoGrad here: its switch is process-wide and
					// would stop the other ranks' backward passes below
					// from recording.
					h := rows(x, s.Owned)
					for l, conv := range []*nn.GCNConv{m.Conv1, m.Conv2} {
						ext, err := s.Exchange(c, h.MatMul(conv.W))
						if err != nil {
							return err
						}
						h = nn.SpMM(s.GCN, ext).Add(conv.B)
						if l == 0 {
							h = h.ReLU()
						}
					}
					f := h.Size(1)
					for i, v := range s.Owned {
						for j := range f {
							if d := math.Abs(float64(h.Data()[i*f+j] - wantData[v*f+j])); d > 1e-5 {
								return fmt.Errorf("node %d output %d: partitioned %v, whole graph %v", v, j, h.Data()[i*f+j], wantData[v*f+j])
							}
						}
					}
					// The backward pass: the propagation's gradient at
					// the extended input, halo rows sent back.
					ext, err := s.Exchange(c, rows(x, s.Owned))
					if err != nil {
						return err
					}
					ext.SetRequiresGrad(true)
					nn.SpMM(s.GCN, ext).Mul(rows(r, s.Owned)).Sum().Backward()
					dx, err := s.ExchangeGrad(c, ext.Grad())
					if err != nil {
						return err
					}
					for i, v := range s.Owned {
						for j := range 12 {
							if d := math.Abs(float64(dx.Data()[i*12+j] - wantGrad[v*12+j])); d > 1e-5 {
								return fmt.Errorf("node %d input gradient %d: partitioned %v, whole graph %v", v, j, dx.Data()[i*12+j], wantGrad[v*12+j])
							}
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestShardPlan(t *testing.T) {
	// 0 -> 1 -> 2 -> 3 (edges src -> dst), parts {0,1} and {2,3}.
	g, err := graph.FromEdges(4, []int{0, 1, 2}, []int{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := RangePartition(4, 2)
	s0, _ := p.Shard(g, 0)
	s1, _ := p.Shard(g, 1)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"part 0 halo", s0.Halo, []int(nil)},
		{"part 1 halo", s1.Halo, []int{1}},
		{"part 0 sends to 1", s0.Send[1], []int{1}},
		{"part 1 receives from 0", s1.Recv[0], []int{0}},
		{"part 1 graph sources", s1.Graph.NumSrc(), 3},
	} {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestPartitionedTraining trains a two-layer GCN full-batch for a few SGD
// steps with the graph split in two, and checks that the parameters end
// where training on the whole graph takes them.
func TestPartitionedTraining(t *testing.T) {
	g0, x0, y0 := sbm(t)
	perm := rand.New(rand.NewPCG(5, 5)).Perm(g0.NumNodes())
	g, x := shuffled(t, g0, x0)
	y := make([]int, len(y0))
	for i, old := range perm { // new id i is old node perm[i]
		y[i] = y0[old]
	}
	train := []int{}
	for v := 0; v < g.NumNodes(); v += 3 {
		train = append(train, v)
	}
	const steps = 5
	nn.Seed(4)
	ref := nn.NewGCN(12, 16, 3)
	ref.Dropout = 0
	start := make([][]float32, 0)
	for _, p := range ref.Params() {
		start = append(start, append([]float32(nil), p.Data()...))
	}
	opt := nn.NewSGD(ref.Params(), 0.5, 0.9, 0)
	for range steps {
		opt.ZeroGrad()
		nn.CrossEntropy(ref.Forward(g, x), y, train).Backward()
		opt.Step()
	}
	p, err := BFSPartition(g, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := make([][][]float32, 2)
	err = Spawn(2, func(c Communicator) error {
		s, err := p.Shard(g, c.Rank())
		if err != nil {
			return err
		}
		m := nn.NewGCN(12, 16, 3)
		for i, q := range m.Params() {
			copy(q.Data(), start[i])
		}
		f := x.Size(1)
		xs := make([]float32, 0, len(s.Owned)*f)
		ys := make([]int, len(s.Owned))
		var local []int // the shard's training rows
		isTrain := map[int]bool{}
		for _, v := range train {
			isTrain[v] = true
		}
		for i, v := range s.Owned {
			xs = append(xs, x.Data()[v*f:(v+1)*f]...)
			ys[i] = y[v]
			if isTrain[v] {
				local = append(local, i)
			}
		}
		xo := tensor.FromSlice(xs, len(s.Owned), f)
		grads, err := NewBucketer(m.Params(), c, 0)
		if err != nil {
			return err
		}
		opt := nn.NewSGD(m.Params(), 0.5, 0.9, 0)
		tape := s.Tape(c)
		for range steps {
			opt.ZeroGrad()
			h := xo
			for l, conv := range []*nn.GCNConv{m.Conv1, m.Conv2} {
				xw := h.MatMul(conv.W)
				ext, err := tape.Exchange(xw)
				if err != nil {
					return err
				}
				h = nn.SpMM(s.GCN, ext).Add(conv.B)
				if l == 0 {
					h = h.ReLU()
				}
			}
			// The whole graph's mean over the training nodes is the
			// sum over the shards of their sums divided by its count.
			loss := nn.CrossEntropy(h, ys, local).MulScalar(float32(len(local)) / float32(len(train)))
			if err := tape.Backward(loss); err != nil {
				return err
			}
			if err := grads.AllReduce(Sum); err != nil {
				return err
			}
			opt.Step()
		}
		for _, q := range m.Params() {
			got[c.Rank()] = append(got[c.Rank()], q.Data())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	moved := 0.0
	for i, q := range ref.Params() {
		for j, v := range q.Data() {
			moved = math.Max(moved, math.Abs(float64(v-start[i][j])))
			for r := range 2 {
				if d := math.Abs(float64(got[r][i][j] - v)); d > 1e-4 {
					t.Fatalf("parameter %d value %d: part %d has %v, whole-graph training %v", i, j, r, got[r][i][j], v)
				}
			}
		}
	}
	if moved < 1e-2 {
		t.Fatalf("training moved the parameters by at most %v", moved)
	}
}
