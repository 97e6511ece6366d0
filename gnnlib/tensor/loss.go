package tensor

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend/opcode"
)

// lossRows validates a [N, C] score matrix, labels and the row subset, and
// returns the rows to use (all rows when rows is nil).
func lossRows(op string, x *Tensor, labels, rows []int) []int {
	x.mustDense(op)
	checkLoss(op, x, labels, rows)
	if rows == nil {
		rows = make([]int, x.shape[0])
		for i := range rows {
			rows[i] = i
		}
	}
	return rows
}

// checkLoss validates a [N, C] score matrix (on any device), labels and the
// row subset (nil: every row).
func checkLoss(op string, x *Tensor, labels, rows []int) {
	checkLossShape(op, x, labels, rows)
	checkLossRows(op, x.shape[0], x.shape[1], labels, rows)
}

// checkLossShape is checkLoss without the pass over the rows: the shapes
// and an empty row set.
func checkLossShape(op string, x *Tensor, labels, rows []int) {
	if len(x.shape) != 2 {
		panic(&ShapeError{Op: op, A: cloneInts(x.shape), Msg: "needs [N, C] scores"})
	}
	n := x.shape[0]
	if len(labels) != n {
		panic(&ShapeError{Op: op, A: cloneInts(x.shape), B: []int{len(labels)}, Msg: "need one label per row"})
	}
	if (rows == nil && n == 0) || (rows != nil && len(rows) == 0) {
		panic(&ShapeError{Op: op, A: cloneInts(x.shape), B: []int{0}, Msg: "empty row set"})
	}
}

// checkLossRows panics for a row out of [0, n) or a label of a listed
// row out of [0, c): one pass over the rows, which a device backend that
// is a LabelChecker makes only when it uploads the labels.
func checkLossRows(op string, n, c int, labels, rows []int) {
	check := func(r int) {
		if r < 0 || r >= n {
			indexPanic(op, r, n)
		}
		if l := labels[r]; l < 0 || l >= c {
			panic(fmt.Errorf("tensor: %s: label %d of row %d not in [0, %d): %w", op, l, r, c, ErrIndex))
		}
	}
	if rows == nil {
		for r := range labels {
			check(r)
		}
		return
	}
	for _, r := range rows {
		check(r)
	}
}

// CrossEntropy is the mean cross-entropy of logits [N, C] against integer
// labels, over the rows listed in rows (nil means every row): the fused,
// numerically stable -mean(log_softmax(logits)[r, labels[r]]). labels is
// indexed by row number (len(labels) == N), so the same label slice serves
// the train, validation and test index sets.
func CrossEntropy(logits *Tensor, labels []int, rows []int) *Tensor {
	if logits.dev != nil {
		return deviceCrossEntropy(logits, labels, rows)
	}
	start := opStart()
	rows = lossRows("CrossEntropy", logits, labels, rows)
	c := logits.shape[1]
	lse := make([]float64, len(rows)) // log-sum-exp per listed row, for backward
	var total float64
	for i, r := range rows {
		x := logits.data[r*c : (r+1)*c]
		m := x[0]
		for _, v := range x {
			if v > m {
				m = v
			}
		}
		var s float64
		for _, v := range x {
			s += math.Exp(float64(v - m))
		}
		lse[i] = math.Log(s) + float64(m)
		total += lse[i] - float64(x[labels[r]])
	}
	inv := 1 / float64(len(rows))
	out := Scalar(float32(total * inv))
	return newOpSince(start, "CrossEntropy", out, []*Tensor{logits}, func(g *Tensor) []*Tensor {
		d := newDense(logits.shape)
		scale := float64(g.data[0]) * inv
		for i, r := range rows {
			x, dst := logits.data[r*c:(r+1)*c], d.data[r*c:(r+1)*c]
			for j, v := range x {
				dst[j] += float32(math.Exp(float64(v)-lse[i]) * scale)
			}
			dst[labels[r]] -= float32(scale)
		}
		return []*Tensor{d}
	})
}

// NLL is the mean negative log-likelihood of log-probabilities logp [N, C]
// at labels over rows (nil means every row), like CrossEntropy after
// LogSoftmax.
func NLL(logp *Tensor, labels []int, rows []int) *Tensor {
	if logp.dev != nil {
		checkLoss("NLL", logp, labels, rows)
		return deviceNLL(logp, labels, rows)
	}
	start := opStart()
	rows = lossRows("NLL", logp, labels, rows)
	c := logp.shape[1]
	var total float64
	for _, r := range rows {
		total -= float64(logp.data[r*c+labels[r]])
	}
	inv := 1 / float64(len(rows))
	out := Scalar(float32(total * inv))
	return newOpSince(start, "NLL", out, []*Tensor{logp}, func(g *Tensor) []*Tensor {
		d := newDense(logp.shape)
		v := -g.data[0] * float32(inv)
		for _, r := range rows {
			d.data[r*c+labels[r]] += v
		}
		return []*Tensor{d}
	})
}

// MSE is the mean squared error between pred and target (same shape).
func MSE(pred, target *Tensor) *Tensor {
	if pred.dev != nil || target.dev != nil {
		return deviceLoss("MSE", opcode.LossMSE, pred, target)
	}
	start := opStart()
	pred.mustDense("MSE")
	target.mustDense("MSE")
	if !pred.SameShape(target) {
		panic(&ShapeError{Op: "MSE", A: cloneInts(pred.shape), B: cloneInts(target.shape)})
	}
	var total float64
	for i, p := range pred.data {
		d := float64(p - target.data[i])
		total += d * d
	}
	n := float64(len(pred.data))
	out := Scalar(float32(total / n))
	return newOpSince(start, "MSE", out, []*Tensor{pred, target}, func(g *Tensor) []*Tensor {
		k := 2 * g.data[0] / float32(n)
		dp := newDense(pred.shape)
		for i, p := range pred.data {
			dp.data[i] = k * (p - target.data[i])
		}
		var dt *Tensor
		if target.RequiresGrad() {
			dt = dp.Neg()
		}
		return []*Tensor{dp, dt}
	})
}

// BCEWithLogits is the mean binary cross-entropy of sigmoid(logits) against
// target in [0, 1] (same shape), computed stably from the logits as
// max(x, 0) - x·t + log(1 + e^-|x|).
func BCEWithLogits(logits, target *Tensor) *Tensor {
	if logits.dev != nil || target.dev != nil {
		return deviceLoss("BCEWithLogits", opcode.LossBCELogits, logits, target)
	}
	start := opStart()
	logits.mustDense("BCEWithLogits")
	target.mustDense("BCEWithLogits")
	if !logits.SameShape(target) {
		panic(&ShapeError{Op: "BCEWithLogits", A: cloneInts(logits.shape), B: cloneInts(target.shape)})
	}
	var total float64
	for i, v := range logits.data {
		x, t := float64(v), float64(target.data[i])
		total += math.Max(x, 0) - x*t + math.Log1p(math.Exp(-math.Abs(x)))
	}
	n := float64(len(logits.data))
	out := Scalar(float32(total / n))
	return newOpSince(start, "BCEWithLogits", out, []*Tensor{logits, target}, func(g *Tensor) []*Tensor {
		k := g.data[0] / float32(n)
		dx := newDense(logits.shape)
		for i, v := range logits.data {
			dx.data[i] = k * (sigmoid(v) - target.data[i])
		}
		var dt *Tensor
		if target.RequiresGrad() {
			dt = newDense(target.shape)
			for i, v := range logits.data {
				dt.data[i] = -k * v
			}
		}
		return []*Tensor{dx, dt}
	})
}
