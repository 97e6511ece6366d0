package prof

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// OpRow is one line of an op profile: one op name in one pass.
type OpRow struct {
	// Op is the op's name as the tensor package reports it ("MatMul").
	Op string
	// Backward is true for work done during the backward pass: the op's
	// gradient and every op its gradient function called.
	Backward bool
	// DType is the format the op stored its output in (forward) or the
	// gradients in (backward): tensor.Float32, or under tensor.Autocast
	// the 16-bit format. The calls of one op in two formats make two rows.
	DType tensor.DType
	// Calls counts the op's runs.
	Calls int
	// Time is the op's self time: its duration less that of the ops it
	// called, so that the rows of a profile add up to the traced time.
	Time time.Duration
	// Bytes estimates the memory traffic from the operand shapes: every
	// input and output read or written once, at the size of its format
	// (DType.Size: 4 bytes a value, 2 for a 16-bit one; on the CPU, where
	// Autocast only emulates 16-bit storage, an op's output and the
	// inputs other ops made under it count as 16-bit, as the device would
	// store them). A graph op reads a feature row per edge (no reuse from
	// caches, so an upper bound), an 8-byte index and a 4-byte weight per
	// edge, and writes its output once.
	Bytes int64
	// FLOPs estimates the floating-point operations: 2mkn for a matrix
	// product, 2·nnz·n for a sparse one, 2·E·f for a graph op over E edges
	// and f features (a multiply-add per edge and feature), the
	// multiply-adds of a convolution, one per output element for
	// everything else.
	FLOPs int64
	// Share is Time over the profile's wall time.
	Share float64
}

// Name returns the op's name, with " (backward)" for backward rows and
// the format in brackets for 16-bit rows: "MatMul [bfloat16]".
func (r OpRow) Name() string {
	n := r.Op
	if r.Backward {
		n += " (backward)"
	}
	if r.DType != tensor.Float32 {
		n += " [" + r.DType.String() + "]"
	}
	return n
}

// Intensity returns the arithmetic intensity, FLOPs per byte moved.
func (r OpRow) Intensity() float64 {
	if r.Bytes == 0 {
		return 0
	}
	return float64(r.FLOPs) / float64(r.Bytes)
}

// GFLOPs returns the attained rate in GFLOP/s.
func (r OpRow) GFLOPs() float64 {
	if r.Time <= 0 {
		return 0
	}
	return float64(r.FLOPs) / r.Time.Seconds() / 1e9
}

// GBs returns the attained bandwidth in GB/s.
func (r OpRow) GBs() float64 {
	if r.Time <= 0 {
		return 0
	}
	return float64(r.Bytes) / r.Time.Seconds() / 1e9
}

// OpReport is an op-level profile of a stretch of work, usually one
// training step.
type OpReport struct {
	// Rows are sorted by decreasing Time.
	Rows []OpRow
	// Wall is the wall time from StartOps to Stop.
	Wall time.Duration
	// OpTime is the sum of the rows' times.
	OpTime time.Duration
	// Events counts the op events seen.
	Events int
}

// Coverage returns OpTime/Wall: the part of the wall time the profile
// explains. The rest is code between ops (Go loops in the caller, the
// interpreter) that the op hook cannot see.
func (r *OpReport) Coverage() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.OpTime) / float64(r.Wall)
}

// Top returns the first n rows (all when n <= 0 or n is larger).
func (r *OpReport) Top(n int) []OpRow {
	if n <= 0 || n > len(r.Rows) {
		n = len(r.Rows)
	}
	return r.Rows[:n]
}

// String formats the report as an aligned text table.
func (r *OpReport) String() string {
	var b strings.Builder
	w := len("op")
	for _, row := range r.Rows {
		w = max(w, len(row.Name()))
	}
	fmt.Fprintf(&b, "%-*s %7s %12s %7s %10s %10s\n", w, "op", "calls", "time", "share", "MB", "MFLOP")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "%-*s %7d %12v %6.1f%% %10.2f %10.2f\n", w, row.Name(), row.Calls, round(row.Time),
			100*row.Share, float64(row.Bytes)/1e6, float64(row.FLOPs)/1e6)
	}
	fmt.Fprintf(&b, "ops %v of wall %v (%.1f%%), %d events", round(r.OpTime), round(r.Wall), 100*r.Coverage(), r.Events)
	return b.String()
}

// HTML formats the report as an HTML table, for notebooks (viz wraps it
// into a display bundle).
func (r *OpReport) HTML() string {
	var b strings.Builder
	b.WriteString("<table>\n<thead><tr><th style=\"text-align:left\">op</th><th>calls</th><th>time</th><th>share</th><th>MB moved</th><th>MFLOP</th><th>GFLOP/s</th></tr></thead>\n<tbody>\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "<tr><td style=\"text-align:left\">%s</td><td>%d</td><td>%v</td><td>%.1f%%</td><td>%.2f</td><td>%.2f</td><td>%.2f</td></tr>\n",
			html.EscapeString(row.Name()), row.Calls, round(row.Time), 100*row.Share,
			float64(row.Bytes)/1e6, float64(row.FLOPs)/1e6, row.GFLOPs())
	}
	fmt.Fprintf(&b, "</tbody>\n<caption style=\"caption-side:bottom\">ops %v of wall %v (%.1f%%), %d events</caption>\n</table>",
		round(r.OpTime), round(r.Wall), 100*r.Coverage(), r.Events)
	return b.String()
}

// OpProfiler records the ops run between StartOps and Stop.
type OpProfiler struct {
	mu      sync.Mutex
	start   time.Time
	events  []opEvent
	restore func()
	report  *OpReport
}

// opEvent is what the hook keeps of a tensor.OpEvent: no tensor, so that
// profiling does not keep the step's activations alive.
type opEvent struct {
	name         string
	backward     bool
	dtype        tensor.DType
	start, end   time.Time
	flops, bytes int64
}

// StartOps starts an op profile: it installs the tensor package's op hook
// (restoring the previous one on Stop) and starts the wall clock.
func StartOps() *OpProfiler {
	p := &OpProfiler{}
	p.restore = backend.SetOpHook(p.record)
	p.start = time.Now()
	return p
}

func (p *OpProfiler) record(e tensor.OpEvent) {
	flops, bytes := estimate(e)
	p.mu.Lock()
	p.events = append(p.events, opEvent{name: e.Name, backward: e.Backward, dtype: e.DType, start: e.Start, end: e.End, flops: flops, bytes: bytes})
	p.mu.Unlock()
}

// Stop ends the profile and returns the report; calling it again returns
// the same report.
func (p *OpProfiler) Stop() *OpReport {
	wall := time.Since(p.start)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.report != nil {
		return p.report
	}
	p.restore()
	p.report = build(p.events, wall)
	p.events = nil
	return p.report
}

// build turns events into rows. Events arrive when ops end, so an op that
// calls other ops (a backward function calling MatMul) arrives after them:
// the events still on the stack that started after it are its children.
// Children take their parent's pass, and the parent keeps only its self
// time, so that nothing is counted twice.
func build(events []opEvent, wall time.Duration) *OpReport {
	type frame struct {
		ev       int
		start    time.Time
		dur      time.Duration
		children []int
	}
	self := make([]time.Duration, len(events))
	children := make([][]int, len(events))
	var stack []frame
	for i, e := range events {
		// An op that did not report its start counts as instantaneous.
		start := e.start
		if start.IsZero() {
			start = e.end
		}
		d := e.end.Sub(start)
		f := frame{ev: i, start: start, dur: d}
		var inner time.Duration
		for len(stack) > 0 && !stack[len(stack)-1].start.Before(start) {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			inner += top.dur
			f.children = append(f.children, top.ev)
		}
		self[i] = max(0, d-inner)
		children[i] = f.children
		stack = append(stack, f)
	}
	backward := make([]bool, len(events))
	var mark func(i int, bw bool)
	mark = func(i int, bw bool) {
		backward[i] = bw || events[i].backward
		for _, c := range children[i] {
			mark(c, backward[i])
		}
	}
	for _, f := range stack {
		mark(f.ev, false)
	}
	type key struct {
		op string
		bw bool
		dt tensor.DType
	}
	rows := map[key]*OpRow{}
	r := &OpReport{Wall: wall, Events: len(events)}
	for i, e := range events {
		k := key{e.name, backward[i], e.dtype}
		row := rows[k]
		if row == nil {
			row = &OpRow{Op: e.name, Backward: k.bw, DType: e.dtype}
			rows[k] = row
		}
		row.Calls++
		row.Time += self[i]
		row.FLOPs += e.flops
		row.Bytes += e.bytes
		r.OpTime += self[i]
	}
	for _, row := range rows {
		if wall > 0 {
			row.Share = float64(row.Time) / float64(wall)
		}
		r.Rows = append(r.Rows, *row)
	}
	slices.SortFunc(r.Rows, func(a, b OpRow) int {
		if c := cmp.Compare(b.Time, a.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name(), b.Name())
	})
	return r
}

// estimate returns the FLOPs and bytes of one op event from its shapes.
// In the backward pass e.Out is the gradient of the op's output, which has
// the output's shape: the gradient of a product costs two products, and
// it reads the output gradient and the inputs and writes one gradient per
// input.
func estimate(e tensor.OpEvent) (flops, bytes int64) {
	out := int64(0)
	if e.Out != nil {
		out = int64(e.Out.NNZ())
	}
	var in int64
	for _, t := range e.Inputs {
		if t != nil {
			in += elemBytes(t, e.DType)
		}
	}
	size := int64(e.DType.Size())
	flops = out
	if e.Edges > 0 && e.Out != nil && e.Out.Dims() == 2 {
		// The work of a graph op (either pass) follows its edges: each
		// gathers a row of f features and multiply-adds it into a row.
		edges, f := int64(e.Edges), int64(e.Out.Size(-1))
		return 2 * edges * f, size*edges*f + 12*edges + size*out
	}
	switch e.Name {
	case "MatMul", "BatchMatMul", "SpMM":
		if len(e.Inputs) >= 2 && e.Inputs[0] != nil && e.Inputs[1] != nil && e.Out != nil {
			a, b := e.Inputs[0], e.Inputs[1]
			n := int64(b.Size(-1))
			if a.IsSparse() {
				flops = 2 * int64(a.NNZ()) * n
			} else {
				flops = 2 * int64(a.Len()/a.Size(-1)) * int64(a.Size(-1)) * n
			}
		}
	case "Conv2D":
		if len(e.Inputs) >= 2 && e.Inputs[1] != nil && e.Out != nil && e.Inputs[1].Dims() == 4 {
			w := e.Inputs[1]
			flops = 2 * int64(e.Out.Len()) * int64(w.Len()/w.Size(0))
		}
	}
	if e.Backward {
		if flops != out {
			flops *= 2
		}
		return flops, size*out + 2*in
	}
	return flops, size*out + in
}

// elemBytes returns the bytes a tensor occupies: its format's size a
// value (Tensor.DType; on the CPU, cast for the output of an op recorded
// under Autocast, which the device would store in cast), plus an index (8
// bytes) a stored entry for a sparse matrix.
func elemBytes(t *tensor.Tensor, cast tensor.DType) int64 {
	if t.IsSparse() {
		return 12 * int64(t.NNZ())
	}
	size := int64(t.DType().Size())
	if !t.IsOnDevice() && !t.IsLeaf() {
		size = int64(cast.Size())
	}
	return size * int64(t.Len())
}
