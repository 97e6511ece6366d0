//go:build cuda

package dist

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// gpus opens n devices and an NCCL group over them, skipping the test
// where there are fewer GPUs; a missing NCCL fails it.
func gpus(t *testing.T, n int) ([]*cuda.Device, []Communicator) {
	devs := make([]*cuda.Device, n)
	for i := range devs {
		d, err := cuda.Open(i)
		if err != nil {
			t.Skipf("device %d: %v", i, err)
		}
		t.Cleanup(func() { d.Close() })
		devs[i] = d
	}
	cs, err := NewNCCLGroup(devs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range cs {
			c.Close()
		}
	})
	return devs, cs
}

func TestNCCLAllReduceGPUs(t *testing.T) {
	v, err := NCCLVersion()
	if errors.Is(err, ErrNoNCCL) {
		t.Log(err)
	}
	t.Logf("NCCL %s", v)
	devs, cs := gpus(t, 2)
	const size = 1<<20 + 3
	got := make([][]float32, 2)
	err = runRanks(cs, func(c Communicator) error {
		x := tensor.FromSlice(rankData(c.Rank(), size), size).To(devs[c.Rank()].Backend())
		if err := c.(TensorCommunicator).AllReduceTensors([]*tensor.Tensor{x}, Sum); err != nil {
			return err
		}
		got[c.Rank()] = x.CPU().Data()
		host := rankData(c.Rank(), 5)
		if err := c.AllReduce(host, Mean); err != nil {
			return err
		}
		want := []float32{}
		for i := range 5 {
			want = append(want, (rankData(0, 5)[i]+rankData(1, 5)[i])/2)
		}
		for i := range host {
			if math.Abs(float64(host[i]-want[i])) > 1e-6 {
				return fmt.Errorf("host mean %d = %v, want %v", i, host[i], want[i])
			}
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := rankData(0, size), rankData(1, size)
	for i := range a {
		if w := a[i] + b[i]; math.Abs(float64(got[0][i]-w)) > 1e-5 || got[0][i] != got[1][i] {
			t.Fatalf("value %d: ranks have %v and %v, want %v", i, got[0][i], got[1][i], w)
		}
	}
}

// runRanks runs fn on each communicator's own goroutine.
func runRanks(cs []Communicator, fn func(Communicator) error) error {
	errs := make(chan error, len(cs))
	for _, c := range cs {
		go func() { errs <- fn(c) }()
	}
	var all []error
	for range cs {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// TestDataParallelGPUs is TestDataParallelMatchesOneRank on two GPUs over
// NCCL against one rank on the CPU.
func TestDataParallelGPUs(t *testing.T) {
	devs, cs := gpus(t, 2)
	nn.Seed(11)
	ref := nn.NewGraphSAGE(12, 16, 3, "mean")
	const batch, steps = 16, 8
	one, _ := trainSAGE(t, 1, batch, steps, ref.Params(), true)
	g, x, y := sbm(t)
	seeds := make([]int, 0, g.NumNodes())
	for v := 0; v < g.NumNodes(); v += 2 {
		seeds = append(seeds, v)
	}
	params := make([][][]float32, 2)
	err := runRanks(cs, func(c Communicator) error {
		dev := devs[c.Rank()].Backend()
		m := nn.NewGraphSAGE(12, 16, 3, "mean")
		m.Dropout = 0
		if c.Rank() == 0 {
			for i, p := range m.Params() {
				copy(p.Data(), ref.Params()[i].Data())
			}
		}
		nn.To(m, dev)
		dp, err := NewDataParallel(m, c)
		if err != nil {
			return err
		}
		opt := nn.NewAdam(m.Params(), 0.01, 0)
		ld, err := dp.NewLoader(g, x, y, seeds, data.NeighborLoaderOptions{BatchSize: batch, Fanouts: []int{-1, -1}})
		if err != nil {
			return err
		}
		for done := 0; done < steps; {
			it := ld.Iter()
			for done < steps && it.Next() {
				b := it.Batch()
				if _, err := dp.Step(opt, func() *tensor.Tensor {
					return nn.CrossEntropy(m.ForwardBlocks(b.Graphs(), b.X.To(dev)), b.Y, nil)
				}); err != nil {
					it.Close()
					return err
				}
				done++
			}
			it.Close()
		}
		for _, p := range m.Params() {
			params[c.Rank()] = append(params[c.Rank()], p.CPU().Data())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one[0] {
		for j, v := range one[0][i] {
			for r := range 2 {
				if d := math.Abs(float64(params[r][i][j] - v)); d > 1e-3 {
					t.Fatalf("parameter %d value %d: GPU rank %d has %v, one CPU rank %v", i, j, r, params[r][i][j], v)
				}
			}
		}
	}
}
