package tensor

import (
	"sync"

	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
)

// This file is the float32 matrix-multiply kernel: Goto-style blocking
// (pack a kc×nc panel of B and an mc×kc block of A into contiguous, zero
// padded micro-panels) around a 6×16 register-blocked micro-kernel: AVX2
// and FMA assembly on amd64 (gemm_amd64.s, twelve YMM accumulators, twelve
// fused multiply-adds per two loads of B and six broadcasts of A), and a
// Go version elsewhere (kernelGo). Strides let the packing read A or B
// transposed, which MatMul's backward pass uses instead of materialising
// transposes.

const (
	mr = 6   // rows of the micro-kernel
	nr = 16  // columns of the micro-kernel (two YMM vectors)
	kc = 256 // depth of a packed panel (the B micro-panel, 16 KB, stays in L1)
	mc = 96  // rows of a packed A block (96 KB, fits L2)
	nc = 512 // columns of a packed B panel
)

// matrix is a strided view of a row-major matrix: element (i, j) is
// data[i*rs + j*cs]. A transposed matrix swaps rs and cs.
type matrix struct {
	data   []float32
	rs, cs int
}

// gemm computes c[i*ldc+j] (+)= sum_p a(i,p)·b(p,j) for i < m, j < n, in
// parallel over row blocks of c. With acc false c is overwritten.
func gemm(m, n, k int, a, b matrix, c []float32, ldc int, acc bool) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !acc {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	// Split rows in multiples of mr; small products stay on one goroutine.
	flops := m * n * k
	grain := mr
	if flops < 1<<18 {
		grain = m
	} else if per := (1 << 18) / (n * k); per > grain {
		grain = (per + mr - 1) / mr * mr
	}
	// One range per thread, as each range packs all of b again (finer
	// ranges would pack it more often); gemmSerial checks for an
	// interrupt between its blocks instead.
	panels := (m + mr - 1) / mr
	parallelFor(panels, max(grain/mr, (panels+Threads()-1)/Threads()), func(lo, hi int) {
		i0, i1 := lo*mr, hi*mr
		if i1 > m {
			i1 = m
		}
		gemmSerial(i1-i0, n, k, matrix{a.data[i0*a.rs:], a.rs, a.cs}, b, c[i0*ldc:], ldc, acc)
	})
}

// gemmSerial is gemm on the calling goroutine.
func gemmSerial(m, n, k int, a, b matrix, c []float32, ldc int, acc bool) {
	kb0 := min(kc, k)
	bufs := getPackBuffers(kb0*((min(nc, n)+nr-1)/nr*nr), kb0*((min(mc, m)+mr-1)/mr*mr))
	defer packPool.Put(bufs)
	bp, ap := bufs.b, bufs.a
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		accBlock := acc || pc > 0
		for jc := 0; jc < n; jc += nc {
			nb := min(nc, n-jc)
			packB(bp, b, pc, jc, kb, nb)
			for ic := 0; ic < m; ic += mc {
				if parallel.Stopping() {
					// Interrupted: the loop that runs this call (every
					// caller is inside one) panics with *Canceled.
					return
				}
				mb := min(mc, m-ic)
				packA(ap, a, ic, pc, mb, kb)
				macroKernel(mb, nb, kb, ap, bp, c[ic*ldc+jc:], ldc, accBlock)
			}
		}
	}
}

// packBuffers are the packed panels of one gemmSerial call, reused
// through packPool: small products (a convolution per image) would
// otherwise spend more time allocating and clearing them than multiplying.
type packBuffers struct{ a, b []float32 }

var packPool = sync.Pool{New: func() any { return new(packBuffers) }}

// getPackBuffers returns buffers of at least nb and na elements (their
// contents are overwritten by packing, so they need no clearing).
func getPackBuffers(nb, na int) *packBuffers {
	p := packPool.Get().(*packBuffers)
	if cap(p.b) < nb {
		p.b = make([]float32, nb)
	}
	if cap(p.a) < na {
		p.a = make([]float32, na)
	}
	p.b, p.a = p.b[:nb], p.a[:na]
	return p
}

// packA copies a(i0:i0+mb, p0:p0+kb) into ap as micro-panels of mr rows:
// panel r holds, for each p, the mr values a(i0+r*mr+0..mr-1, p0+p).
func packA(ap []float32, a matrix, i0, p0, mb, kb int) {
	for r := 0; r < mb; r += mr {
		panel := ap[r*kb : (r+mr)*kb]
		rows := min(mr, mb-r)
		if a.rs == 1 && a.cs != 1 && rows == mr {
			// transposed a: the mr values of one p are contiguous
			for p := 0; p < kb; p++ {
				base := (p0+p)*a.cs + i0 + r
				copy(panel[p*mr:p*mr+mr], a.data[base:base+mr])
			}
			continue
		}
		for ii := 0; ii < mr; ii++ {
			if ii >= rows {
				for p := 0; p < kb; p++ {
					panel[p*mr+ii] = 0
				}
				continue
			}
			base := (i0+r+ii)*a.rs + p0*a.cs
			if a.cs == 1 {
				src := a.data[base : base+kb]
				for p, v := range src {
					panel[p*mr+ii] = v
				}
			} else {
				for p := 0; p < kb; p++ {
					panel[p*mr+ii] = a.data[base+p*a.cs]
				}
			}
		}
	}
}

// packB copies b(p0:p0+kb, j0:j0+nb) into bp as micro-panels of nr columns.
// Row-major b copies nr values per row; a transposed b (rs == 1) reads each
// column as a contiguous run.
func packB(bp []float32, b matrix, p0, j0, kb, nb int) {
	for q := 0; q < nb; q += nr {
		panel := bp[q*kb : (q+nr)*kb]
		cols := min(nr, nb-q)
		if b.rs == 1 && b.cs != 1 {
			for jj := 0; jj < nr; jj++ {
				if jj >= cols {
					for p := 0; p < kb; p++ {
						panel[p*nr+jj] = 0
					}
					continue
				}
				base := p0 + (j0+q+jj)*b.cs
				for p, v := range b.data[base : base+kb] {
					panel[p*nr+jj] = v
				}
			}
			continue
		}
		for p := 0; p < kb; p++ {
			dst := panel[p*nr : p*nr+nr]
			base := (p0+p)*b.rs + (j0+q)*b.cs
			if cols == nr && b.cs == 1 {
				copy(dst, b.data[base:base+nr])
				continue
			}
			for jj := 0; jj < nr; jj++ {
				if jj < cols {
					dst[jj] = b.data[base+jj*b.cs]
				} else {
					dst[jj] = 0
				}
			}
		}
	}
}

// macroKernel multiplies a packed mb×kb block by a packed kb×nb panel into c.
func macroKernel(mb, nb, kb int, ap, bp, c []float32, ldc int, acc bool) {
	var tile [mr * nr]float32
	for q := 0; q < nb; q += nr {
		cols := min(nr, nb-q)
		bpanel := bp[q*kb : (q+nr)*kb]
		for r := 0; r < mb; r += mr {
			rows := min(mr, mb-r)
			apanel := ap[r*kb : (r+mr)*kb]
			if rows == mr && cols == nr {
				kernel(kb, apanel, bpanel, c[r*ldc+q:], ldc, acc)
				continue
			}
			// edge: compute the full tile into a buffer, store the valid part
			clear(tile[:])
			kernel(kb, apanel, bpanel, tile[:], nr, true)
			for ii := 0; ii < rows; ii++ {
				row := c[(r+ii)*ldc+q : (r+ii)*ldc+q+cols]
				for jj := range row {
					if acc {
						row[jj] += tile[ii*nr+jj]
					} else {
						row[jj] = tile[ii*nr+jj]
					}
				}
			}
		}
	}
}

// kernelGo computes the mr×nr tile c (+)= A·B from packed micro-panels in
// Go, in 3×4 blocks of twelve accumulators (which fit the registers of
// arm64; amd64 uses the assembly kernel). Each element is summed over k
// from zero in order and then stored or added to c, as the assembly does.
func kernelGo(kb int, a, b, c []float32, ldc int, acc bool) {
	a = a[:kb*mr]
	b = b[:kb*nr]
	for i0 := 0; i0 < mr; i0 += 3 {
		for j0 := 0; j0 < nr; j0 += 4 {
			var c00, c01, c02, c03 float32
			var c10, c11, c12, c13 float32
			var c20, c21, c22, c23 float32
			for p := 0; p < kb; p++ {
				av := a[p*mr+i0 : p*mr+i0+3 : p*mr+i0+3]
				bv := b[p*nr+j0 : p*nr+j0+4 : p*nr+j0+4]
				a0, a1, a2 := av[0], av[1], av[2]
				b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
				c00 += a0 * b0
				c01 += a0 * b1
				c02 += a0 * b2
				c03 += a0 * b3
				c10 += a1 * b0
				c11 += a1 * b1
				c12 += a1 * b2
				c13 += a1 * b3
				c20 += a2 * b0
				c21 += a2 * b1
				c22 += a2 * b2
				c23 += a2 * b3
			}
			sums := [3][4]float32{{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}}
			for ii := range sums {
				row := c[(i0+ii)*ldc+j0 : (i0+ii)*ldc+j0+4 : (i0+ii)*ldc+j0+4]
				if acc {
					row[0] += sums[ii][0]
					row[1] += sums[ii][1]
					row[2] += sums[ii][2]
					row[3] += sums[ii][3]
				} else {
					row[0], row[1], row[2], row[3] = sums[ii][0], sums[ii][1], sums[ii][2], sums[ii][3]
				}
			}
		}
	}
}
