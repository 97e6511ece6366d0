package nn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestRankingMetrics checks ROCAUC and AveragePrecision on cases worked
// out by hand (the first is scikit-learn's documentation example).
func TestRankingMetrics(t *testing.T) {
	tests := []struct {
		name    string
		scores  []float32
		labels  []int
		auc, ap float64
	}{
		// Pairs (pos, neg): 0.35>0.1 yes, 0.35>0.4 no, 0.8 beats both: 3/4.
		// Thresholds 0.8 (P 1, R ½), 0.4 (P ½, R ½), 0.35 (P ⅔, R 1):
		// AP = ½·1 + 0 + ½·⅔ = 5/6.
		{"sklearn", []float32{0.1, 0.4, 0.35, 0.8}, []int{0, 0, 1, 1}, 0.75, 5.0 / 6},
		// All tied: every pair counts one half; one threshold, P ½, R 1.
		{"all tied", []float32{0.5, 0.5, 0.5, 0.5}, []int{0, 1, 0, 1}, 0.5, 0.5},
		// 3 beats both negatives, the tied 2s count ½, 2 beats 1:
		// (2 + 1.5)/4. AP: threshold 3 (P 1, R ½), 2 (P ⅔, R 1).
		{"ties", []float32{1, 2, 2, 3}, []int{0, 1, 0, 1}, 0.875, 0.5 + 0.5*2.0/3},
		{"perfect", []float32{-3, 5, -1, 4}, []int{0, 1, 0, 1}, 1, 1},
		// Reversed: no positive above a negative; AP: positives found
		// at ranks 3 and 4: ½·⅓ + ½·½.
		{"reversed", []float32{3, 4, 2, 1}, []int{0, 0, 1, 1}, 0, 0.5/3 + 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auc, err := nn.ROCAUC(tt.scores, tt.labels)
			if err != nil || math.Abs(auc-tt.auc) > 1e-12 {
				t.Errorf("ROCAUC(%v, %v) = %v, %v, want %v", tt.scores, tt.labels, auc, err, tt.auc)
			}
			ap, err := nn.AveragePrecision(tt.scores, tt.labels)
			if err != nil || math.Abs(ap-tt.ap) > 1e-12 {
				t.Errorf("AveragePrecision(%v, %v) = %v, %v, want %v", tt.scores, tt.labels, ap, err, tt.ap)
			}
		})
	}
	for _, bad := range []struct {
		name   string
		scores []float32
		labels []int
	}{
		{"one class", []float32{1, 2}, []int{1, 1}},
		{"label 2", []float32{1, 2}, []int{0, 2}},
		{"lengths", []float32{1, 2, 3}, []int{0, 1}},
	} {
		if _, err := nn.ROCAUC(bad.scores, bad.labels); !errors.Is(err, nn.ErrLabels) {
			t.Errorf("ROCAUC(%s) error = %v, want ErrLabels", bad.name, err)
		}
		if _, err := nn.AveragePrecision(bad.scores, bad.labels); !errors.Is(err, nn.ErrLabels) {
			t.Errorf("AveragePrecision(%s) error = %v, want ErrLabels", bad.name, err)
		}
	}
}

func TestLinkGradients(t *testing.T) {
	z := tensor.NewRNG(2).Normal(0, 1, 6, 4)
	pos := graph.EdgeList{Src: []int{0, 1, 2, 0}, Dst: []int{1, 3, 5, 0}}
	neg := graph.EdgeList{Src: []int{4, 5}, Dst: []int{0, 2}}
	runGradCases(t, []gradCase{
		{"DotDecode", []*tensor.Tensor{z}, func() *tensor.Tensor { return nn.DotDecode(z, pos) }},
		{"ReconLoss", []*tensor.Tensor{z}, func() *tensor.Tensor { return nn.ReconLoss(z, pos, neg) }},
	})
	got := nn.DotDecode(z, pos).Data()
	for i := range got {
		var want float32
		for j := 0; j < 4; j++ {
			want += z.At(pos.Src[i], j) * z.At(pos.Dst[i], j)
		}
		if math.Abs(float64(got[i]-want)) > 1e-5 {
			t.Errorf("DotDecode pair %d = %v, want %v", i, got[i], want)
		}
	}
}

// trainGAE trains a GAE on a link split of Cora from seed s as PyG's
// autoencoder example does (val 5%, test 10%, hidden 32, embeddings 16,
// Adam lr 0.01, fresh negatives each epoch) and returns the test ROC-AUC
// and AP.
func trainGAE(t testing.TB, ds *data.Dataset, s int, epochs int) (auc, ap float64) {
	split, err := graph.RandomLinkSplit(ds.Graph, 0.05, 0.1, uint64(s))
	if err != nil {
		t.Fatalf("RandomLinkSplit: %v", err)
	}
	nn.Seed(int64(s))
	model := nn.NewGAE(ds.NumFeatures(), 32, 16)
	opt := nn.NewAdam(model.Params(), 0.01, 0)
	for epoch := 0; epoch < epochs; epoch++ {
		neg, err := graph.NegativeSampling(split.Train, split.TrainPos.Len(), uint64(s*100000+epoch))
		if err != nil {
			t.Fatalf("NegativeSampling: %v", err)
		}
		loss := nn.ReconLoss(model.Forward(split.Train, ds.X), split.TrainPos, neg)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	model.Eval()
	var z *tensor.Tensor
	tensor.NoGrad(func() { z = model.Forward(split.Train, ds.X) })
	auc, ap, err = nn.LinkMetrics(z, split.TestPos, split.TestNeg)
	if err != nil {
		t.Fatalf("LinkMetrics: %v", err)
	}
	return auc, ap
}

// TestCoraGAE checks Kipf and Welling's GAE targets on Cora after 400 epochs (ROC-AUC ≥
// 0.90, AP ≥ 0.91); GNNLAB_SEEDS=n averages seeds 1…n.
func TestCoraGAE(t *testing.T) {
	ds := cora(t)
	n := seedCount(t)
	aucs, aps := make([]float64, n), make([]float64, n)
	for s := range aucs {
		aucs[s], aps[s] = trainGAE(t, ds, s+1, 400)
	}
	am, asd := meanSD(aucs)
	pm, psd := meanSD(aps)
	t.Logf("GAE on Cora over %d seeds: test ROC-AUC %.4f ± %.4f %v, AP %.4f ± %.4f %v", n, am, asd, aucs, pm, psd, aps)
	if am < 0.90 || pm < 0.91 {
		t.Errorf("GAE Cora test ROC-AUC = %.4f, AP = %.4f (means of %d seeds), want >= 0.90 and >= 0.91", am, pm, n)
	}
}
