package devicetest

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/stats"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TrainNodesAMP trains model full-batch on ds for epochs with the forward
// pass (and the final evaluation) under tensor.Autocast(dt) — Float32:
// none — and, for Float16, an nn.GradScaler; it returns the test accuracy.
// The model and ds.X live where the caller put them (nn.To, X.To).
func TrainNodesAMP(ds *data.Dataset, x *tensor.Tensor, model nn.GraphLayer, opt nn.Optimizer, epochs int, dt tensor.DType) float64 {
	scaler := nn.NewGradScaler()
	for range epochs {
		model.SetTraining(true)
		var loss *tensor.Tensor
		tensor.Autocast(dt, func() {
			loss = nn.CrossEntropy(model.Forward(ds.Graph, x), ds.Y, ds.TrainIdx)
		})
		opt.ZeroGrad()
		if dt == tensor.Float16 {
			scaler.Scale(loss).Backward()
			scaler.Step(opt, model.Params())
			scaler.Update()
		} else {
			loss.Backward()
			opt.Step()
		}
	}
	model.SetTraining(false)
	var acc float64
	tensor.NoGrad(func() {
		tensor.Autocast(dt, func() {
			acc = nn.Accuracy(model.Forward(ds.Graph, x), ds.Y, ds.TestIdx)
		})
	})
	return acc
}

// CheckCoraAutocast trains GCN (Adam 0.01) and GAT (8 heads × 8, Adam
// 0.005) on Cora for 200 epochs over seeds 1..seeds, in float32 and under
// Autocast (BFloat16 for both, Float16 with a GradScaler for GCN), on dev
// (nil: the CPU, where Autocast is the emulation), prints mean ± sd of
// the test accuracies and fails when a 16-bit mean is more than 0.5
// points from the float32 one.
//
// Each seed trains both precisions from the same parameters, so it also
// prints the per-seed differences and their mean with its 95 % interval
// (stats.Paired): whether the seeds tell the two apart. With
// GNNLAB_CORA_SEEDS=N (N > seeds) it trains seeds 1..N for that interval;
// the 0.5-point rule still reads seeds 1..seeds.
func CheckCoraAutocast(t *testing.T, dev tensor.Backend, ds *data.Dataset, seeds int) {
	where := "CPU emulation"
	x := ds.X
	if dev != nil {
		where = fmt.Sprint(dev)
		x = ds.X.To(dev)
	}
	n := seeds
	if v, err := strconv.Atoi(os.Getenv("GNNLAB_CORA_SEEDS")); err == nil && v > seeds {
		n = v
	}
	models := []struct {
		name  string
		build func() (nn.GraphLayer, nn.Optimizer)
		dts   []tensor.DType
	}{
		{"GCN", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGCN(ds.NumFeatures(), 16, ds.NumClasses())
			if dev != nil {
				nn.To(m, dev)
			}
			return m, nn.NewAdam(m.Params(), 0.01, 5e-4)
		}, []tensor.DType{tensor.BFloat16, tensor.Float16}},
		{"GAT", func() (nn.GraphLayer, nn.Optimizer) {
			m := nn.NewGAT(ds.NumFeatures(), 8, 8, ds.NumClasses())
			if dev != nil {
				nn.To(m, dev)
			}
			return m, nn.NewAdam(m.Params(), 0.005, 5e-4)
		}, []tensor.DType{tensor.BFloat16}},
	}
	for _, mc := range models {
		t.Run(mc.name, func(t *testing.T) {
			run := func(dt tensor.DType) []float64 {
				var accs []float64
				for seed := 1; seed <= n; seed++ {
					nn.Seed(int64(seed))
					m, opt := mc.build()
					accs = append(accs, 100*TrainNodesAMP(ds, x, m, opt, 200, dt))
				}
				return accs
			}
			a32 := run(tensor.Float32)
			m32, sd32 := meanSD(a32[:seeds])
			fmt.Printf("Cora %s over %d seeds (%s): float32   %.2f ± %.2f %%\n", mc.name, seeds, where, m32, sd32)
			for _, dt := range mc.dts {
				a16 := run(dt)
				m16, sd16 := meanSD(a16[:seeds])
				fmt.Printf("Cora %s over %d seeds (%s): %-9v %.2f ± %.2f %% (%+.2f points)\n", mc.name, seeds, where, dt, m16, sd16, m16-m32)
				printPaired(mc.name, where, dt, a16, a32, seeds)
				if math.Abs(m16-m32) > 0.5 {
					t.Errorf("Cora %s (%s): mean accuracy under Autocast(%v) %.2f%%, float32 %.2f%%: more than 0.5 points apart", mc.name, where, dt, m16, m32)
				}
			}
		})
	}
}

// printPaired prints the per-seed differences a16 − a32 and the paired
// summary (mean, standard error, 95 % interval) of the first seeds of
// them and, when there are more, of all.
func printPaired(model, where string, dt tensor.DType, a16, a32 []float64, seeds int) {
	var b strings.Builder
	for i := range a16 {
		fmt.Fprintf(&b, " %+.1f", a16[i]-a32[i])
	}
	fmt.Printf("Cora %s (%s): %v − float32 per seed:%s\n", model, where, dt, b.String())
	for _, k := range []int{seeds, len(a16)} {
		s, err := stats.Paired(a16[:k], a32[:k])
		if err != nil {
			fmt.Printf("Cora %s (%s): paired %v − float32 over %d seeds: %v\n", model, where, dt, k, err)
		} else {
			fmt.Printf("Cora %s (%s): paired %v − float32 over %d seeds: %s points\n", model, where, dt, k, s.Format("%.2f"))
		}
		if k == len(a16) {
			break
		}
	}
}

// meanSD returns the mean and the sample standard deviation of xs.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}
