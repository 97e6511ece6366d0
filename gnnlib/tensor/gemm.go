package tensor

// This file is the float32 matrix-multiply kernel: Goto-style blocking
// (pack a kc×nc panel of B and an mc×kc block of A into contiguous, zero
// padded micro-panels) around a 4×4 register-blocked micro-kernel. The
// micro-kernel keeps 16 accumulators in registers and reads 8 packed values
// per step of k, so the inner loop is bounds-check free and does 16
// multiply-adds per 8 loads. Strides let the packing read A or B transposed,
// which MatMul's backward pass uses instead of materialising transposes.

const (
	mr = 4   // rows of the micro-kernel
	nr = 4   // columns of the micro-kernel
	kc = 256 // depth of a packed panel (fits L1 with the micro-panels)
	mc = 64  // rows of a packed A block (fits L2)
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
	parallelFor((m+mr-1)/mr, grain/mr, func(lo, hi int) {
		i0, i1 := lo*mr, hi*mr
		if i1 > m {
			i1 = m
		}
		gemmSerial(i1-i0, n, k, matrix{a.data[i0*a.rs:], a.rs, a.cs}, b, c[i0*ldc:], ldc, acc)
	})
}

// gemmSerial is gemm on the calling goroutine.
func gemmSerial(m, n, k int, a, b matrix, c []float32, ldc int, acc bool) {
	bp := make([]float32, kc*((min(nc, n)+nr-1)/nr*nr))
	ap := make([]float32, kc*((min(mc, m)+mr-1)/mr*mr))
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		accBlock := acc || pc > 0
		for jc := 0; jc < n; jc += nc {
			nb := min(nc, n-jc)
			packB(bp, b, pc, jc, kb, nb)
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				packA(ap, a, ic, pc, mb, kb)
				macroKernel(mb, nb, kb, ap, bp, c[ic*ldc+jc:], ldc, accBlock)
			}
		}
	}
}

// packA copies a(i0:i0+mb, p0:p0+kb) into ap as micro-panels of mr rows:
// panel r holds, for each p, the mr values a(i0+r*mr+0..mr-1, p0+p).
func packA(ap []float32, a matrix, i0, p0, mb, kb int) {
	for r := 0; r < mb; r += mr {
		panel := ap[r*kb : (r+mr)*kb]
		rows := min(mr, mb-r)
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
func packB(bp []float32, b matrix, p0, j0, kb, nb int) {
	for q := 0; q < nb; q += nr {
		panel := bp[q*kb : (q+nr)*kb]
		cols := min(nr, nb-q)
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
				kernel4x4(kb, apanel, bpanel, c[r*ldc+q:], ldc, acc)
				continue
			}
			// edge: compute the full tile into a buffer, store the valid part
			clear(tile[:])
			kernel4x4(kb, apanel, bpanel, tile[:], nr, true)
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

// kernel4x4 computes the 4×4 tile c (+)= A·B from packed micro-panels.
func kernel4x4(kb int, a, b, c []float32, ldc int, acc bool) {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	a = a[:kb*mr]
	b = b[:kb*nr]
	for p := 0; p < kb; p++ {
		av := a[p*mr : p*mr+4 : p*mr+4]
		bv := b[p*nr : p*nr+4 : p*nr+4]
		a0, a1, a2, a3 := av[0], av[1], av[2], av[3]
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
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	r0 := c[0:4:4]
	r1 := c[ldc : ldc+4 : ldc+4]
	r2 := c[2*ldc : 2*ldc+4 : 2*ldc+4]
	r3 := c[3*ldc : 3*ldc+4 : 3*ldc+4]
	if acc {
		r0[0] += c00
		r0[1] += c01
		r0[2] += c02
		r0[3] += c03
		r1[0] += c10
		r1[1] += c11
		r1[2] += c12
		r1[3] += c13
		r2[0] += c20
		r2[1] += c21
		r2[2] += c22
		r2[3] += c23
		r3[0] += c30
		r3[1] += c31
		r3[2] += c32
		r3[3] += c33
		return
	}
	r0[0], r0[1], r0[2], r0[3] = c00, c01, c02, c03
	r1[0], r1[1], r1[2], r1[3] = c10, c11, c12, c13
	r2[0], r2[1], r2[2], r2[3] = c20, c21, c22, c23
	r3[0], r3[1], r3[2], r3[3] = c30, c31, c32, c33
}
