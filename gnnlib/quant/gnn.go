package quant

import (
	"fmt"
	"math"
	"sync"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// GNN is a quantized copy of a two-layer GCN or GAT from gnnlib/nn. It
// holds its own copy of the weights, so calibrating, fine-tuning (QAT)
// and converting it leave the original model as it was.
//
// A GCN layer runs in integers as the teaching text's section 8.2
// recommends: x·W is an INT8 GEMM with INT32 accumulation; the result is
// scaled by D^−1/2 (the source side of Â = D^−1/2·(A+I)·D^−1/2),
// requantized to INT8 and summed over in-neighbours in INT32
// (AggregateInt8); the destination side D^−1/2, the scales and the bias
// are applied once per output. A GAT layer runs x·W in integers and its
// attention (softmax and weighted sum) in float32. The raw input features
// are quantized row by row at run time (a row-normalised bag of words is
// then represented exactly); every other activation uses a range
// calibrated by an Observer.
type GNN struct {
	cfg       Config
	kind      string
	layers    []*qlayer
	agg       []Params   // GCN: parameters of D^−1/2·x·W before the sum
	aggObs    []Observer // GCN: their observers
	att       [][2]*tensor.Tensor
	heads     []int
	concat    []bool
	slope     float32
	attDrop   float32
	dropout   float32
	rng       *tensor.RNG
	dqRNG     *tensor.RNG
	training  bool
	converted bool
	// prepared holds the codes of the input remembered by PrepareInput.
	prepared struct {
		x *tensor.Tensor
		c *codes
	}
}

// NewGNN wraps an *nn.GCN or *nn.GAT for quantization.
func NewGNN(model nn.GraphLayer, cfg Config) (*GNN, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	m := &GNN{cfg: cfg, rng: tensor.NewRNG(1), dqRNG: tensor.NewRNG(2)}
	if cfg.DegreeQuant != nil {
		m.dqRNG = tensor.NewRNG(cfg.DegreeQuant.Seed)
	}
	switch t := model.(type) {
	case *nn.GCN:
		m.kind, m.dropout = "GCN", t.Dropout
		for i, c := range []*nn.GCNConv{t.Conv1, t.Conv2} {
			m.layers = append(m.layers, newQLayer(fmt.Sprintf("conv%d", i+1), c.W, c.B, 1, cfg))
			m.aggObs = append(m.aggObs, cfg.newObserver())
		}
	case *nn.GAT:
		m.kind, m.dropout = "GAT", t.Dropout
		for i, c := range []*nn.GATConv{t.Conv1, t.Conv2} {
			m.layers = append(m.layers, newQLayer(fmt.Sprintf("conv%d", i+1), c.W, c.B, 1, cfg))
			m.att = append(m.att, [2]*tensor.Tensor{
				c.AttSrc.Clone().SetRequiresGrad(true), c.AttDst.Clone().SetRequiresGrad(true)})
			m.heads = append(m.heads, c.Heads)
			m.concat = append(m.concat, c.Concat)
			m.slope, m.attDrop = c.NegativeSlope, c.Dropout
		}
	default:
		return nil, fmt.Errorf("quant: NewGNN(%T): %w (want *nn.GCN or *nn.GAT)", model, ErrUnsupported)
	}
	m.layers[0].dynamicInput = true
	m.layers[0].float = cfg.KeepFirst
	m.layers[len(m.layers)-1].float = cfg.KeepLast
	return m, nil
}

// Params returns the trainable copies of the weights, for an optimiser
// during QAT.
func (m *GNN) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for i, l := range m.layers {
		ps = append(ps, l.params()...)
		if m.att != nil {
			ps = append(ps, m.att[i][0], m.att[i][1])
		}
	}
	return ps
}

// SetTraining switches between training (dropout, observers updated,
// Degree-Quant masks) and evaluation.
func (m *GNN) SetTraining(on bool) { m.training = on }

// Config returns the configuration.
func (m *GNN) Config() Config { return m.cfg }

func (m *GNN) String() string {
	return fmt.Sprintf("quant.GNN(%s, %v, converted=%t)", m.kind, m.cfg, m.converted)
}

// gcnGraph holds what a GCN layer needs of a graph: Â's structure and
// D^−1/2.
type gcnGraph struct {
	norm *graph.Graph
	dinv *tensor.Tensor // [N, 1]
	dq   []float32      // Degree-Quant probabilities
}

var graphCache struct {
	sync.Mutex
	keys []*graph.Graph
	vals []*gcnGraph
}

// gcnInfo returns the (cached) normalisation data of g.
func gcnInfo(g *graph.Graph, dq *DegreeQuant) (*gcnGraph, error) {
	graphCache.Lock()
	defer graphCache.Unlock()
	for i, k := range graphCache.keys {
		if k == g {
			return graphCache.vals[i], nil
		}
	}
	if g.Weights != nil || !g.IsSquare() {
		return nil, fmt.Errorf("quant: GNN needs an unweighted square graph (D^-1/2 must factor out of Â): %w", ErrUnsupported)
	}
	norm := g.GCNNorm()
	n := norm.NumNodes()
	d := make([]float32, n)
	for v := range d {
		d[v] = float32(1 / math.Sqrt(float64(norm.Indptr[v+1]-norm.Indptr[v])))
	}
	info := &gcnGraph{norm: norm, dinv: tensor.Wrap(d, n, 1)}
	if dq == nil {
		dq = &DegreeQuant{}
	}
	info.dq = dq.Probabilities(norm)
	graphCache.keys = append(graphCache.keys, g)
	graphCache.vals = append(graphCache.vals, info)
	if len(graphCache.keys) > 8 {
		graphCache.keys, graphCache.vals = graphCache.keys[1:], graphCache.vals[1:]
	}
	return info, nil
}

type passMode int

const (
	passCalibrate passMode = iota // float, observers record
	passFake                      // fake quantization (QAT)
)

// Calibrate runs the float model on (g, x) in evaluation mode and records
// the activations in the observers. Call it on one or more calibration
// inputs before Convert (PTQ), or once before QAT to start the ranges.
func (m *GNN) Calibrate(g *graph.Graph, x *tensor.Tensor) error {
	var err error
	tensor.NoGrad(func() { _, err = m.run(g, x, passCalibrate, false) })
	return err
}

// FakeForward is the QAT forward pass: weights and activations are
// fake-quantized (straight-through estimator in backward). In training
// mode it applies dropout, updates the activation observers and draws
// Degree-Quant masks; in evaluation mode it simulates the integer model in
// float32.
func (m *GNN) FakeForward(g *graph.Graph, x *tensor.Tensor) (*tensor.Tensor, error) {
	return m.run(g, x, passFake, m.training)
}

func (m *GNN) run(g *graph.Graph, x *tensor.Tensor, mode passMode, training bool) (*tensor.Tensor, error) {
	info, err := gcnInfo(g, m.cfg.DegreeQuant)
	if err != nil {
		return nil, err
	}
	var keep []bool
	if training && mode == passFake && m.cfg.DegreeQuant != nil {
		keep = DegreeMask(info.dq, m.dqRNG)
	}
	h := x
	for i, l := range m.layers {
		if training {
			h = dropoutAny(h, m.dropout, m.rng)
		}
		in := h
		if mode == passFake {
			if in, err = l.fakeInput(h, m.cfg, training, keepFor(keep, i)); err != nil {
				return nil, err
			}
		} else if !l.dynamicInput {
			l.obs.Observe(h.Data())
		}
		w := l.w
		if mode == passFake {
			if w, err = l.fakeWeight(m.cfg); err != nil {
				return nil, err
			}
		}
		if m.kind == "GCN" {
			z := in.MatMul(w).Mul(info.dinv)
			if !l.float {
				if mode == passCalibrate || training {
					m.aggObs[i].Observe(z.Data())
				}
				if mode == passFake {
					p, err := ObserverParams(m.aggObs[i], Symmetric, 8)
					if err != nil {
						return nil, err
					}
					if z, err = fakeQuantRows(z, p, keep); err != nil {
						return nil, err
					}
				}
			}
			h = nn.SumAggregate(info.norm, z).Mul(info.dinv).Add(l.b)
			if i+1 < len(m.layers) {
				h = h.ReLU()
			}
			continue
		}
		h = m.gatLayer(g, i, in.MatMul(w), training)
	}
	return h, nil
}

// keepFor returns the Degree-Quant mask for layer i's input: the raw
// features of layer 0 are quantized per row and need none.
func keepFor(keep []bool, i int) []bool {
	if i == 0 {
		return nil
	}
	return keep
}

// gatLayer finishes GAT layer i from h = x·W: attention logits, the fused
// attention, head concatenation or mean, bias, and ELU between layers.
func (m *GNN) gatLayer(g *graph.Graph, i int, h *tensor.Tensor, training bool) *tensor.Tensor {
	heads := m.heads[i]
	n, hf := h.Size(0), h.Size(1)
	f := hf / heads
	logits := func(att *tensor.Tensor) *tensor.Tensor {
		return h.Reshape(n, heads, f).Mul(att.Reshape(1, heads, f)).SumAxis(2, false)
	}
	gl := selfLoops(g)
	out := nn.GATAttention(gl, h, logits(m.att[i][0]), logits(m.att[i][1]), heads, m.slope, m.attDrop, m.rng, training)
	if !m.concat[i] && heads > 1 {
		out = out.Reshape(n, heads, f).MeanAxis(1, false)
	}
	out = out.Add(m.layers[i].b)
	if i+1 < len(m.layers) {
		out = out.ELU(1)
	}
	return out
}

var loopCache struct {
	sync.Mutex
	key, val *graph.Graph
}

// selfLoops returns g with self-loops, cached for the last graph.
func selfLoops(g *graph.Graph) *graph.Graph {
	loopCache.Lock()
	defer loopCache.Unlock()
	if loopCache.key != g {
		loopCache.key, loopCache.val = g, g.AddSelfLoops()
	}
	return loopCache.val
}

// dropoutAny is dropout for dense or sparse (data) tensors.
func dropoutAny(x *tensor.Tensor, p float32, rng *tensor.RNG) *tensor.Tensor {
	if p == 0 {
		return x
	}
	if !x.IsSparse() {
		return x.Dropout(p, rng, true)
	}
	indptr, indices, vals := x.CSR()
	out := make([]float32, len(vals))
	for i, v := range vals {
		if rng.Float32() >= p {
			out[i] = v / (1 - p)
		}
	}
	return tensor.SparseFromCSR(x.Size(0), x.Size(1), indptr, indices, out)
}

// Convert freezes the model for integer inference: weights are quantized
// (per channel, symmetric, Config.Bits) and packed, activation parameters
// are taken from the observers.
func (m *GNN) Convert() error {
	for i, l := range m.layers {
		if err := l.convert(m.cfg); err != nil {
			return err
		}
		if m.kind == "GCN" && !l.float {
			p, err := ObserverParams(m.aggObs[i], Symmetric, 8)
			if err != nil {
				return err
			}
			m.agg = append(m.agg[:i], p)
		} else {
			m.agg = append(m.agg[:i], Params{})
		}
	}
	m.converted = true
	return nil
}

// Forward runs the converted model with the integer kernels and returns
// the logits of every node.
func (m *GNN) Forward(g *graph.Graph, x *tensor.Tensor) (*tensor.Tensor, error) {
	if !m.converted {
		return nil, ErrNotConverted
	}
	info, err := gcnInfo(g, m.cfg.DegreeQuant)
	if err != nil {
		return nil, err
	}
	var out *tensor.Tensor
	tensor.NoGrad(func() { out, err = m.forward(g, info, x) })
	return out, err
}

func (m *GNN) forward(g *graph.Graph, info *gcnGraph, x *tensor.Tensor) (*tensor.Tensor, error) {
	h := x
	var in *codes // codes handed from one integer GCN layer to the next
	for i, l := range m.layers {
		last := i+1 == len(m.layers)
		if l.float {
			h = m.floatLayer(g, info, i, h, last)
			continue
		}
		if in == nil {
			var err error
			if in, err = m.inputCodes(l, h); err != nil {
				return nil, err
			}
		}
		if m.kind == "GAT" {
			acc := make([]int32, in.rows*l.packed.N)
			n := l.packed.N
			parallelFor(in.rows, max(1, in.rows/(4*tensor.Threads())), func(lo, hi int) {
				in.productRows(l, lo, hi, func(v int, a []int32) { copy(acc[v*n:v*n+n], a) })
			})
			hw := make([]float32, len(acc))
			l.dequantize(hw, acc, in.rows, in.scale, nil)
			h, in = m.gatLayer(g, i, tensor.Wrap(hw, in.rows, n), false), nil
			continue
		}
		var next *qlayer
		if !last && !m.layers[i+1].float {
			next = m.layers[i+1]
		}
		h, in = m.gcnLayer(info, i, in, next, !last)
	}
	return h, nil
}

// floatLayer runs layer i in float32 on h.
func (m *GNN) floatLayer(g *graph.Graph, info *gcnGraph, i int, h *tensor.Tensor, last bool) *tensor.Tensor {
	hw := h.MatMul(m.layers[i].w)
	if m.kind == "GAT" {
		return m.gatLayer(g, i, hw, false)
	}
	h = nn.SumAggregate(info.norm, hw.Mul(info.dinv)).Mul(info.dinv).Add(m.layers[i].b)
	if !last {
		h = h.ReLU()
	}
	return h
}

// Bytes returns the parameter bytes of the converted model (weights at
// their bit width plus scales, float32 biases, attention vectors and
// float layers), or of the float copy before Convert.
func (m *GNN) Bytes() int {
	n := 0
	for i, l := range m.layers {
		n += l.bytes()
		if m.att != nil {
			n += 4 * (m.att[i][0].Len() + m.att[i][1].Len())
		}
		if m.kind == "GCN" && m.converted && !l.float {
			n += 4 // the aggregation scale (symmetric: no zero point)
		}
	}
	return n
}
