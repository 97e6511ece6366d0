package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// This file is the INT8×INT8→INT32 matrix product. Go has no SIMD, so the
// kernel gets its speed from SWAR (SIMD within a register): three int8
// weights of neighbouring output columns are packed into one int64 as
// lanes of 21 bits, b0 + b1·2^21 + b2·2^42, and a single 64-bit multiply
// by an activation a gives a·b0 + a·b1·2^21 + a·b2·2^42 — three
// multiply-adds in one instruction. Two's complement arithmetic keeps every
// lane exact as long as its running sum stays within ±2^20: a product is at
// most 128·128 = 2^14 in magnitude, so 63 steps of k fit, after which the
// lanes are split off (sign-extended) into int32 accumulators. The
// micro-kernel holds 2 rows × 4 words (12 output columns) in 8 registers.
// On the development machine it runs 2–3.5× faster than the float32
// blocked kernel of gnnlib/tensor on one core (see BenchmarkGEMM).

const (
	laneBits  = 21
	lanes     = 3
	wordsPerK = 4                 // words of the micro-kernel
	colsPanel = lanes * wordsPerK // output columns of one panel: 12
	kFlush    = 63                // steps of k between lane extractions
)

// PackedMatrix is a k×n INT8 matrix (a layer's weights in x·W layout)
// packed for GEMMInt8: panels of 12 columns, each holding for every row p
// four int64 words of three 21-bit lanes. Packing happens once, when a
// layer is quantized.
type PackedMatrix struct {
	K, N   int
	panels []int64 // panel j: words[j*K*4 : (j+1)*K*4], row p at p*4
	colSum []int32 // Σ_p b[p, j], for zero-point corrections
}

// PackInt8 packs the row-major k×n matrix b for GEMMInt8.
func PackInt8(b []int8, k, n int) *PackedMatrix {
	if len(b) < k*n {
		panic(fmt.Errorf("quant: PackInt8: %d values for %d×%d: %w", len(b), k, n, ErrRange))
	}
	np := (n + colsPanel - 1) / colsPanel
	pm := &PackedMatrix{K: k, N: n, panels: make([]int64, np*k*wordsPerK), colSum: make([]int32, n)}
	for j := 0; j < np; j++ {
		panel := pm.panels[j*k*wordsPerK : (j+1)*k*wordsPerK]
		for p := 0; p < k; p++ {
			row := b[p*n : p*n+n]
			for w := 0; w < wordsPerK; w++ {
				var word int64
				for l := 0; l < lanes; l++ {
					col := j*colsPanel + w*lanes + l
					if col < n {
						word += int64(row[col]) << (laneBits * l)
					}
				}
				panel[p*wordsPerK+w] = word
			}
		}
	}
	for p := 0; p < k; p++ {
		for j, v := range b[p*n : p*n+n] {
			pm.colSum[j] += int32(v)
		}
	}
	return pm
}

// Bytes returns the size of the packed words.
func (pm *PackedMatrix) Bytes() int { return 8 * len(pm.panels) }

// ColSums returns Σ_p b[p, j] for each column j (aliased).
func (pm *PackedMatrix) ColSums() []int32 { return pm.colSum }

// GEMMInt8 computes dst = a·b exactly in int32 for a row-major m×K int8
// matrix a and the packed K×N matrix b; dst (m×N, row-major) is
// overwritten. Rows are split over tensor.Threads() goroutines. Sums must
// fit in int32, which holds for K < 131072.
func GEMMInt8(dst []int32, a []int8, m int, b *PackedMatrix) {
	k, n := b.K, b.N
	if len(a) < m*k || len(dst) < m*n {
		panic(fmt.Errorf("quant: GEMMInt8: a has %d values, dst %d, for %d×%d·%d×%d: %w", len(a), len(dst), m, k, k, n, ErrRange))
	}
	pairs := (m + 1) / 2
	// One pair of rows costs about k·n/3 multiplies; keep goroutines busy
	// for at least ~50k of them.
	grain := max(1, 50000/max(1, k*n/lanes))
	parallelFor(pairs, grain, func(lo, hi int) {
		gemmPairs(dst, a, m, b, lo, hi)
	})
}

// gemmSerial is GEMMInt8 on the calling goroutine.
func gemmSerial(dst []int32, a []int8, m int, b *PackedMatrix) {
	gemmPairs(dst, a, m, b, 0, (m+1)/2)
}

// gemmPairs computes the row pairs [lo, hi) of GEMMInt8.
func gemmPairs(dst []int32, a []int8, m int, b *PackedMatrix, lo, hi int) {
	k, n := b.K, b.N
	{
		for pr := lo; pr < hi; pr++ {
			i := 2 * pr
			a0 := a[i*k : i*k+k]
			a1 := a0
			if i+1 < m {
				a1 = a[(i+1)*k : (i+1)*k+k]
			}
			for j := 0; j*colsPanel < n; j++ {
				var tile [2][colsPanel]int32
				c0 := j * colsPanel
				cols := min(colsPanel, n-c0)
				if cols <= (wordsPerK-1)*lanes {
					kernel2x3(&tile, a0, a1, b.panels[j*k*wordsPerK:(j+1)*k*wordsPerK])
				} else {
					kernel2x4(&tile, a0, a1, b.panels[j*k*wordsPerK:(j+1)*k*wordsPerK])
				}
				copy(dst[i*n+c0:i*n+c0+cols], tile[0][:cols])
				if i+1 < m {
					copy(dst[(i+1)*n+c0:(i+1)*n+c0+cols], tile[1][:cols])
				}
			}
		}
	}
}

// kernel2x4 multiplies two rows of a by one packed panel into tile.
func kernel2x4(tile *[2][colsPanel]int32, a0, a1 []int8, panel []int64) {
	k := len(a0)
	a1 = a1[:k]
	panel = panel[:k*wordsPerK]
	for p0 := 0; p0 < k; p0 += kFlush {
		p1 := min(p0+kFlush, k)
		var c00, c01, c02, c03, c10, c11, c12, c13 int64
		for p := p0; p < p1; p++ {
			x0, x1 := int64(a0[p]), int64(a1[p])
			w := panel[p*wordsPerK : p*wordsPerK+4 : p*wordsPerK+4]
			w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
			c00 += x0 * w0
			c01 += x0 * w1
			c02 += x0 * w2
			c03 += x0 * w3
			c10 += x1 * w0
			c11 += x1 * w1
			c12 += x1 * w2
			c13 += x1 * w3
		}
		split(tile[0][0:3:3], c00)
		split(tile[0][3:6:6], c01)
		split(tile[0][6:9:9], c02)
		split(tile[0][9:12:12], c03)
		split(tile[1][0:3:3], c10)
		split(tile[1][3:6:6], c11)
		split(tile[1][6:9:9], c12)
		split(tile[1][9:12:12], c13)
	}
}

// kernel2x3 is kernel2x4 for a panel whose last word holds no column (at
// most 9 columns: the last panel of a narrow layer such as a GCN's 7
// classes or LeNet-5's 6 channels): a quarter fewer multiplies.
func kernel2x3(tile *[2][colsPanel]int32, a0, a1 []int8, panel []int64) {
	k := len(a0)
	a1 = a1[:k]
	panel = panel[:k*wordsPerK]
	for p0 := 0; p0 < k; p0 += kFlush {
		p1 := min(p0+kFlush, k)
		var c00, c01, c02, c10, c11, c12 int64
		for p := p0; p < p1; p++ {
			x0, x1 := int64(a0[p]), int64(a1[p])
			w := panel[p*wordsPerK : p*wordsPerK+3 : p*wordsPerK+3]
			w0, w1, w2 := w[0], w[1], w[2]
			c00 += x0 * w0
			c01 += x0 * w1
			c02 += x0 * w2
			c10 += x1 * w0
			c11 += x1 * w1
			c12 += x1 * w2
		}
		split(tile[0][0:3:3], c00)
		split(tile[0][3:6:6], c01)
		split(tile[0][6:9:9], c02)
		split(tile[1][0:3:3], c10)
		split(tile[1][3:6:6], c11)
		split(tile[1][6:9:9], c12)
	}
}

// split adds the three signed 21-bit lanes of word to dst[0:3].
func split(dst []int32, word int64) {
	const sh = 64 - laneBits
	l0 := word << sh >> sh // sign-extend the low lane
	word = (word - l0) >> laneBits
	l1 := word << sh >> sh
	l2 := (word - l1) >> laneBits
	dst[0] += int32(l0)
	dst[1] += int32(l1)
	dst[2] += int32(l2)
}

// GEMMInt8Ref is the naive reference of GEMMInt8 on an unpacked row-major
// k×n matrix b: dst[i, j] = Σ_p a[i, p]·b[p, j].
func GEMMInt8Ref(dst []int32, a, b []int8, m, k, n int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s int32
			for p := 0; p < k; p++ {
				s += int32(a[i*k+p]) * int32(b[p*n+j])
			}
			dst[i*n+j] = s
		}
	}
}

// parallelFor is parallel.For: f on up to tensor.Threads() ranges
// covering [0, n), each at least grain long. f must not panic: callers
// check lengths first.
func parallelFor(n, grain int, f func(lo, hi int)) { parallel.For(n, grain, f) }

// SparseGEMMInt8 computes dst = a·b exactly in int32 for a sparse m×K int8
// matrix a in compressed sparse rows (m = len(indptr)−1; row i's values
// vals[indptr[i]:indptr[i+1]] sit in columns indices[...]) and the packed
// K×N matrix b; dst (m×N) is overwritten. It is the integer form of a
// bag-of-words feature matrix times a layer's weights: each stored value
// scales one packed row of b, three columns per multiply.
func SparseGEMMInt8(dst []int32, indptr, indices []int, vals []int8, b *PackedMatrix) {
	m, n := len(indptr)-1, b.N
	if m < 0 || len(dst) < m*n {
		panic(fmt.Errorf("quant: SparseGEMMInt8: bad CSR or dst for %d rows, N=%d: %w", m, n, ErrRange))
	}
	checkCSR("SparseGEMMInt8", indptr, indices, len(vals), b.K)
	parallelFor(m, sparseGrain(indptr, n), func(lo, hi int) {
		sparseGEMMRows(indptr, indices, vals, b, lo, hi, nil, func(i int, acc []int32) {
			copy(dst[i*n:i*n+n], acc)
		})
	})
}

// checkCSR panics unless indptr, indices and nvals describe rows whose
// columns lie in [0, k).
func checkCSR(op string, indptr, indices []int, nvals, k int) {
	m := len(indptr) - 1
	if m < 0 || nvals < indptr[m] || len(indices) < indptr[m] {
		panic(fmt.Errorf("quant: %s: bad CSR for %d rows: %w", op, m, ErrRange))
	}
	for _, c := range indices[:indptr[m]] {
		if c < 0 || c >= k {
			panic(fmt.Errorf("quant: %s: column %d outside [0, %d): %w", op, c, k, ErrRange))
		}
	}
}

// sparseGrain is the row grain of a sparse product with n columns: one
// goroutine below ~64k multiply-adds, where starting more costs more than
// it saves.
func sparseGrain(indptr []int, n int) int {
	m := len(indptr) - 1
	if indptr[m]*n < 1<<16 {
		return max(m, 1)
	}
	return max(1, m/(4*tensor.Threads()))
}

// sparseGEMMRows computes the rows [lo, hi) of the sparse product of
// SparseGEMMInt8 and passes each finished row of N sums to emit; the
// slice is reused once emit returns. Streaming rows lets a caller
// requantize them while they are in cache (the fused GCN layer) instead of
// writing and re-reading an int32 matrix. row is scratch of at least
// rowScratch(b) values, or nil.
func sparseGEMMRows(indptr, indices []int, vals []int8, b *PackedMatrix, lo, hi int, row []int32, emit func(i int, acc []int32)) {
	k, n := b.K, b.N
	np := (n + colsPanel - 1) / colsPanel
	if len(row) < np*colsPanel {
		row = make([]int32, np*colsPanel)
	}
	for i := lo; i < hi; i++ {
		cols := indices[indptr[i]:indptr[i+1]]
		vs := vals[indptr[i]:indptr[i+1]]
		vs = vs[:len(cols)]
		for j := 0; j < np; j++ {
			panel := b.panels[j*k*wordsPerK : (j+1)*k*wordsPerK]
			tile := (*[colsPanel]int32)(row[j*colsPanel:])
			*tile = [colsPanel]int32{}
			for e0 := 0; e0 < len(cols); e0 += kFlush {
				e1 := min(e0+kFlush, len(cols))
				var c0, c1, c2, c3 int64
				for e, c := range cols[e0:e1] {
					x := int64(vs[e0+e])
					w := panel[c*wordsPerK : c*wordsPerK+4 : c*wordsPerK+4]
					c0 += x * w[0]
					c1 += x * w[1]
					c2 += x * w[2]
					c3 += x * w[3]
				}
				split(tile[0:3:3], c0)
				split(tile[3:6:6], c1)
				split(tile[6:9:9], c2)
				split(tile[9:12:12], c3)
			}
		}
		emit(i, row[:n])
	}
}

// rowScratch returns the scratch length of sparseGEMMRows for b.
func rowScratch(b *PackedMatrix) int { return (b.N + colsPanel - 1) / colsPanel * colsPanel }

// gemmRows computes the rows [lo, hi) of GEMMInt8's dense product, two at
// a time through kernel2x4, and passes each finished row of N sums to
// emit, as sparseGEMMRows does.
func gemmRows(a []int8, b *PackedMatrix, lo, hi int, emit func(i int, acc []int32)) {
	k, n := b.K, b.N
	np := (n + colsPanel - 1) / colsPanel
	buf := make([]int32, 2*np*colsPanel)
	r0, r1 := buf[:np*colsPanel], buf[np*colsPanel:]
	for i := lo; i < hi; i += 2 {
		a0 := a[i*k : i*k+k]
		a1 := a0
		if i+1 < hi {
			a1 = a[(i+1)*k : (i+1)*k+k]
		}
		for j := 0; j < np; j++ {
			tile := [2][colsPanel]int32{}
			if n-j*colsPanel <= (wordsPerK-1)*lanes {
				kernel2x3(&tile, a0, a1, b.panels[j*k*wordsPerK:(j+1)*k*wordsPerK])
			} else {
				kernel2x4(&tile, a0, a1, b.panels[j*k*wordsPerK:(j+1)*k*wordsPerK])
			}
			copy(r0[j*colsPanel:], tile[0][:])
			copy(r1[j*colsPanel:], tile[1][:])
		}
		emit(i, r0[:n])
		if i+1 < hi {
			emit(i+1, r1[:n])
		}
	}
}
