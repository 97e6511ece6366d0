package cuda

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// CrossEntropy returns the mean cross-entropy over rows and its gradient,
// fused (SoftmaxNLL). The per-row labels, -1 outside rows, are uploaded
// at the first call with these label and row slices and kept on the
// device (Device's label cache, labelcache.go) while the slices live and
// their contents stay the same. Bfloat16 logits (Autocast) are read as
// they are and give a bfloat16 gradient (softmax_nll_blk_bf16) with
// tune.BF16Loss and tune.LossBlockSum, else through a float32 copy.
func (d *backend) CrossEntropy(logits *tensor.Tensor, labels, rows []int) (loss, grad tensor.Storage, err error) {
	var (
		rowsN, cols int
		g           tensor.Storage
		run         func(l *Tensor, lab *Labels) error
	)
	if h, half := d.halfView(logits); half && tune.BF16Loss && tune.LossBlockSum {
		rowsN, cols = h.Rows, h.Cols
		gh, err := d.EmptyBF16(rowsN, cols)
		if err != nil {
			return nil, nil, err
		}
		g = gh
		run = func(l *Tensor, lab *Labels) error { return softmaxNLLHalf(gh, l, h, lab) }
	} else {
		v, err := d.view(logits)
		if err != nil {
			return nil, nil, err
		}
		if half {
			defer v.Free() // the float32 copy of bfloat16 logits, after the kernel's launch
		}
		rowsN, cols = v.Rows, v.Cols
		gf, err := d.Empty(rowsN, cols)
		if err != nil {
			return nil, nil, err
		}
		g = gf
		run = func(l *Tensor, lab *Labels) error { return SoftmaxNLL(gf, l, v, lab) }
	}
	free := func() {
		if f, ok := g.(interface{ Free() }); ok {
			f.Free()
		}
	}
	l, err := d.Empty(1, 1)
	if err != nil {
		free()
		return nil, nil, err
	}
	upload := func() (*Labels, error) {
		y := labels
		if tune.CheckLabelsOnUpload {
			if err := checkLabels(labels, rows, rowsN, cols); err != nil {
				return nil, err
			}
		}
		if rows != nil {
			y = make([]int, len(labels))
			for i := range y {
				y[i] = -1
			}
			for _, r := range rows {
				if y[r] >= 0 {
					return nil, fmt.Errorf("gnnlib/cuda: CrossEntropy with row %d listed twice: %w", r, tensor.ErrNotOnDevice)
				}
				y[r] = labels[r]
			}
		}
		return NewLabels(d.Device, y)
	}
	use := func(lab *Labels) error {
		// Labels checked at their upload against other logits: only the
		// class count can have changed since.
		if tune.CheckLabelsOnUpload && lab.max >= cols {
			return fmt.Errorf("gnnlib/cuda: CrossEntropy: label %d of row %d not in [0, %d): %w", lab.max, lab.maxRow, cols, tensor.ErrIndex)
		}
		return run(l, lab)
	}
	if tune.CacheLabels {
		err = d.labels.with(labels, rows, upload, use)
	} else {
		var lab *Labels
		if lab, err = upload(); err == nil {
			err = use(lab)
			lab.buf.release()
		}
	}
	if err != nil {
		free()
		l.Free()
		return nil, nil, err
	}
	return l, g, nil
}

// ChecksLabels tells tensor.CrossEntropy (tensor.LabelChecker) that
// CrossEntropy checks its rows and labels when it uploads them
// (tune.CheckLabelsOnUpload), so that a call whose labels the cache holds
// reads them on the host once (the cache's comparison), not twice.
func (d *backend) ChecksLabels() bool { return tune.CheckLabelsOnUpload }

// checkLabels returns an error wrapping tensor.ErrIndex for a row out of
// [0, n) or a listed row's label out of [0, c), the first in row order,
// as tensor's own check words it.
func checkLabels(labels, rows []int, n, c int) error {
	check := func(r int) error {
		if r < 0 || r >= n {
			return fmt.Errorf("gnnlib/cuda: CrossEntropy: row %d not in [0, %d): %w", r, n, tensor.ErrIndex)
		}
		if y := labels[r]; y < 0 || y >= c {
			return fmt.Errorf("gnnlib/cuda: CrossEntropy: label %d of row %d not in [0, %d): %w", y, r, c, tensor.ErrIndex)
		}
		return nil
	}
	if rows == nil {
		for r := range labels {
			if err := check(r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range rows {
		if err := check(r); err != nil {
			return err
		}
	}
	return nil
}

// Loss returns the mean element-wise loss op of pred against target and
// its gradient with respect to pred, fused (elem_loss).
func (d *backend) Loss(op tbackend.LossOp, pred, target *tensor.Tensor) (loss, grad tensor.Storage, err error) {
	if int(op) >= len(lossOpKernels) {
		return nil, nil, fmt.Errorf("gnnlib/cuda: Loss %v: %w", op, tensor.ErrNotOnDevice)
	}
	code := lossOpKernels[op].code
	vs, err := d.views(pred, target)
	if err != nil {
		return nil, nil, err
	}
	n := int64(vs[0].Len())
	if int64(vs[1].Len()) != n {
		return nil, nil, shapeErr("Loss", "%d predictions, %d targets", n, vs[1].Len())
	}
	l, err := d.Zeros(1, 1)
	if err != nil {
		return nil, nil, err
	}
	g, err := d.Empty(vs[0].Rows, vs[0].Cols)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 { // the mean of nothing, as on the CPU
		return l, g, l.Fill(float32(math.NaN()))
	}
	err = d.launch("elem_loss", min(d.gridFor(n, 256), 4*d.nsm), 256, vs[0], vs[1], g, l, n, code, float32(1/float64(n)))
	return l, g, err
}

// NLL returns the mean negative log-likelihood of logp at labels over
// rows (nil: all) and its gradient; the (row, label) pairs are uploaded
// per call.
func (d *backend) NLL(logp *tensor.Tensor, labels, rows []int) (loss, grad tensor.Storage, err error) {
	v, err := d.view(logp)
	if err != nil {
		return nil, nil, err
	}
	if len(labels) != v.Rows {
		return nil, nil, shapeErr("NLL", "%d labels for %d rows", len(labels), v.Rows)
	}
	if rows == nil {
		rows = make([]int, v.Rows)
		for i := range rows {
			rows[i] = i
		}
	}
	ys := make([]int, len(rows))
	for i, r := range rows {
		if r < 0 || r >= v.Rows {
			return nil, nil, fmt.Errorf("gnnlib/cuda: NLL: row %d not in [0, %d): %w", r, v.Rows, tensor.ErrIndex)
		}
		if ys[i] = labels[r]; ys[i] < 0 || ys[i] >= v.Cols {
			return nil, nil, fmt.Errorf("gnnlib/cuda: NLL: label %d of row %d not in [0, %d): %w", ys[i], r, v.Cols, tensor.ErrIndex)
		}
	}
	if len(rows) == 0 {
		return nil, nil, shapeErr("NLL", "empty row set")
	}
	ry, err := d.uploadIndex("NLL", rows, v.Rows, ys)
	if err != nil {
		return nil, nil, err
	}
	defer ry.release()
	l, err := d.Zeros(1, 1)
	if err != nil {
		return nil, nil, err
	}
	g, err := d.Zeros(v.Rows, v.Cols)
	if err != nil {
		return nil, nil, err
	}
	k := int64(len(rows))
	return l, g, d.launch("nll_rows", min(d.gridFor(k, 256), 4*d.nsm), 256, v, ry, g, l, k, v.Cols, float32(1/float64(k)))
}

// Labels are class labels on the device, -1 for rows outside the loss.
type Labels struct {
	buf   *buffer
	n     int
	count int
	// max is the largest label, at row maxRow (-1 when none counts).
	max, maxRow int
}

// NewLabels uploads labels; rows with a negative label do not count.
func NewLabels(d *Device, labels []int) (*Labels, error) {
	y := make([]int32, len(labels))
	c, most, at := 0, -1, -1
	for i, l := range labels {
		y[i] = int32(l)
		if l >= 0 {
			c++
		}
		if l > most {
			most, at = l, i
		}
	}
	b, err := d.uploadInts(y)
	if err != nil {
		return nil, err
	}
	return &Labels{buf: b, n: len(labels), count: c, max: most, maxRow: at}, nil
}

// SoftmaxNLL computes the mean negative log-likelihood of log_softmax(logits)
// over the labelled rows into loss (1x1) and its gradient into grad, in one
// fused pass.
func SoftmaxNLL(grad, loss, logits *Tensor, y *Labels) error {
	d, err := sameDev("SoftmaxNLL", grad, loss, logits)
	if err != nil {
		return err
	}
	inv, err := softmaxNLLStart(loss, logits.Rows, logits.Cols, logits.Len(), grad.Len(), y)
	if err != nil {
		return err
	}
	kernel := "softmax_nll"
	if tune.LossBlockSum {
		kernel = "softmax_nll_blk" // one atomic add per block, not per row
	}
	return d.launch(kernel, d.gridFor(int64(logits.Rows)*32, 256), 256, logits, y.buf, grad, loss, logits.Rows, logits.Cols, inv)
}

// softmaxNLLStart checks SoftmaxNLL's shapes (rows x cols logits of n
// values, a gradient of gradLen, a 1x1 loss, a label a row), zeroes the
// loss and returns the scale of the mean over the labelled rows.
func softmaxNLLStart(loss *Tensor, rows, cols, n, gradLen int, y *Labels) (float32, error) {
	if y.n != rows || gradLen != n || loss.Len() != 1 {
		return 0, shapeErr("SoftmaxNLL", "logits %dx%d, %d labels", rows, cols, y.n)
	}
	if err := loss.Fill(0); err != nil {
		return 0, err
	}
	return float32(1) / float32(max(1, y.count)), nil
}

// softmaxNLLHalf is SoftmaxNLL (block-summed) of bfloat16 logits into a
// bfloat16 gradient: softmax_nll_blk_bf16, float32 math, the gradient
// rounded once as it is stored.
func softmaxNLLHalf(grad *BF16Tensor, loss *Tensor, logits *BF16Tensor, y *Labels) error {
	d, err := sameDev("SoftmaxNLL", loss, &Tensor{buf: grad.buf}, &Tensor{buf: logits.buf})
	if err != nil {
		return err
	}
	inv, err := softmaxNLLStart(loss, logits.Rows, logits.Cols, logits.Len(), grad.Len(), y)
	if err != nil {
		return err
	}
	return d.launch("softmax_nll_blk_bf16", d.gridFor(int64(logits.Rows)*32, 256), 256, logits.ptr, y.buf, grad.ptr, loss, logits.Rows, logits.Cols, inv)
}
