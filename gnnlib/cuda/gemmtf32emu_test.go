package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The 3xTF32 GEMM (kernels/gemm_tf32.cu, sm80_gemm_tf32x3) written out in
// Go, block by block, thread by thread and lane by lane: each thread's
// float4 loads of a k-tile (gt_load, zero outside the matrix), where it
// stores them (gt_store: s[row][k] with rows of 20 floats, or s[k][col]
// with rows of 136), the values each lane reads for its fragments
// (gt_at), the split of each into big and small TF32 parts, the
// mma.sync m16n8k8 products with the fragment layout of the PTX ISA, and
// the epilogue's stores (or atomic adds, split-K). TestGEMMTF32x3Emulated
// checks on the CPU that the kernel's index arithmetic multiplies the
// right values, and that three TF32 products come within float32's
// accuracy where one does not. It mirrors the CUDA by hand: a change to
// one needs the same change to the other.

// tf32RNA rounds x to TF32 (10 bits of mantissa), to nearest with ties
// away from zero, as cvt.rna.tf32.f32 does (finite x).
func tf32RNA(x float32) float32 {
	return math.Float32frombits((math.Float32bits(x) + 0x1000) &^ 0x1fff)
}

// emuTF32x3 computes op(A)·op(B) (A m x k, or k x m when ta; B k x n, or
// n x k when tb) as sm80_gemm_tf32x3 does with K split into split chunks,
// with three TF32 products a term (one, big·big, when one is set).
func emuTF32x3(m, n, k int, ta, tb bool, A, B []float32, split int, one bool) []float32 {
	const bm, bk, ldd, ldk = 128, 16, 20, 136
	chunk := (k + split - 1) / split
	chunk = (chunk + bk - 1) / bk * bk
	lda, ldb := k, n
	if ta {
		lda = m
	}
	if tb {
		ldb = k
	}
	dirA, dirB := !ta, tb
	fetch := func(src []float32, ld, rows, cols, r, c int) [4]float32 {
		var o [4]float32
		for j := range 4 {
			if r < rows && c+j < cols {
				o[j] = src[r*ld+c+j]
			}
		}
		return o
	}
	load := func(sm, src []float32, ld int, direct bool, lim, kend, r0, kc int) {
		for th := range 256 {
			for q := range 2 {
				v := th + q*256
				var val [4]float32
				var o int
				if direct {
					val = fetch(src, ld, lim, kend, r0+v>>2, kc+(v&3)*4)
					o = (v>>2)*ldd + (v&3)*4
				} else {
					val = fetch(src, ld, kend, lim, kc+v>>5, r0+(v&31)*4)
					o = (v>>5)*ldk + (v&31)*4
				}
				copy(sm[o:o+4], val[:])
			}
		}
	}
	at := func(sm []float32, direct bool, r, kk int) float32 {
		if direct {
			return sm[r*ldd+kk]
		}
		return sm[kk*ldk+r]
	}
	split2 := func(x float32) (big, small float32) {
		big = tf32RNA(x)
		return big, tf32RNA(x - big)
	}
	// mma is mma.sync.m16n8k8 over a warp: lane l = 4g + t holds A[g][t],
	// A[g+8][t], A[g][t+4], A[g+8][t+4] (a), B[t][g], B[t+4][g] (b) and
	// adds D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1] to c.
	mma := func(c *[32][4]float32, a *[32][4]float32, b *[32][2]float32) {
		var at [16][8]float32
		var bt [8][8]float32
		for l := range 32 {
			g, t := l>>2, l&3
			at[g][t], at[g+8][t], at[g][t+4], at[g+8][t+4] = a[l][0], a[l][1], a[l][2], a[l][3]
			bt[t][g], bt[t+4][g] = b[l][0], b[l][1]
		}
		for l := range 32 {
			g, t := l>>2, l&3
			for q := range 4 {
				row, col := g+8*(q>>1), 2*t+q&1
				s := float64(c[l][q])
				for kk := range 8 {
					s += float64(at[row][kk]) * float64(bt[kk][col])
				}
				c[l][q] = float32(s)
			}
		}
	}
	C := make([]float32, m*n)
	sA, sB := make([]float32, bm*ldd), make([]float32, bm*ldd)
	for by := 0; by*bm < m; by++ {
		for bx := 0; bx*bm < n; bx++ {
			for bz := 0; bz*chunk < k; bz++ {
				m0, n0 := by*bm, bx*bm
				kbeg, kend := bz*chunk, min(k, (bz+1)*chunk)
				var acc [8][4][4][32][4]float32 // warp, i, j, lane, register
				for kc := kbeg; kc < kend; kc += bk {
					load(sA, A, lda, dirA, m, kend, m0, kc)
					load(sB, B, ldb, dirB, n, kend, n0, kc)
					for ks := 0; ks < bk; ks += 8 {
						for w := range 8 {
							wm, wn := (w>>2)*64, (w&3)*32
							var bb, bs [4][32][2]float32
							for j := range 4 {
								for l := range 32 {
									g, t := l>>2, l&3
									c := wn + j*8 + g
									bb[j][l][0], bs[j][l][0] = split2(at(sB, dirB, c, ks+t))
									bb[j][l][1], bs[j][l][1] = split2(at(sB, dirB, c, ks+t+4))
								}
							}
							for i := range 4 {
								var ab, as [32][4]float32
								for l := range 32 {
									g, t := l>>2, l&3
									r := wm + i*16 + g
									ab[l][0], as[l][0] = split2(at(sA, dirA, r, ks+t))
									ab[l][1], as[l][1] = split2(at(sA, dirA, r+8, ks+t))
									ab[l][2], as[l][2] = split2(at(sA, dirA, r, ks+t+4))
									ab[l][3], as[l][3] = split2(at(sA, dirA, r+8, ks+t+4))
								}
								for j := range 4 {
									if !one {
										mma(&acc[w][i][j], &ab, &bs[j])
										mma(&acc[w][i][j], &as, &bb[j])
									}
									mma(&acc[w][i][j], &ab, &bb[j])
								}
							}
						}
					}
				}
				for w := range 8 {
					wm, wn := (w>>2)*64, (w&3)*32
					for l := range 32 {
						g, t := l>>2, l&3
						for i := range 4 {
							for h := range 2 {
								r := m0 + wm + i*16 + g + h*8
								if r >= m {
									continue
								}
								for j := range 4 {
									c := n0 + wn + j*8 + t*2
									for e := range 2 {
										if c+e < n {
											C[r*n+c+e] += acc[w][i][j][l][h*2+e]
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return C
}

// TestGEMMTF32x3Emulated runs sm80_gemm_tf32x3's tiling on the CPU
// (emuTF32x3) in the three forms, with tiles cut in every dimension and K
// split into chunks: on small integers, exact in TF32, every element must
// equal the product; on normal draws the three TF32 products must come
// within 1e-6 of the float64 product (relative to the largest value, as
// TestGEMMKernels measures float32 kernels against 1e-5), where one
// product (big·big) is about 1e-3 off.
func TestGEMMTF32x3Emulated(t *testing.T) {
	for _, c := range []struct {
		m, k, n, split int
		ta, tb         bool
	}{
		{130, 40, 133, 1, false, false},
		{130, 40, 133, 1, true, false},
		{130, 40, 133, 1, false, true},
		{7, 70, 5, 3, true, false}, // split-K: chunks of 32, the last 6 long
		{129, 16, 1, 1, false, true},
		{1, 1, 1, 1, false, false},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d_T%v%v_split%d", c.m, c.k, c.n, c.ta, c.tb, c.split), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(c.m), uint64(c.k)))
			ints := func(n int) []float32 {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.IntN(9) - 4)
				}
				return x
			}
			normals := func(n int) []float32 {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				return x
			}
			gc := gemmCase{c.m, c.k, c.n, c.ta, c.tb, 0}
			ref := func(A, B []float32) []float64 {
				want := make([]float64, c.m*c.n)
				for i := range c.m {
					for j := range c.n {
						want[i*c.n+j] = gc.ref(A, B, i, j)
					}
				}
				return want
			}
			A, B := ints(c.m*c.k), ints(c.k*c.n)
			got, want := emuTF32x3(c.m, c.n, c.k, c.ta, c.tb, A, B, c.split, false), ref(A, B)
			bad := 0
			for i := range got {
				if float64(got[i]) != want[i] {
					if bad++; bad <= 3 {
						t.Errorf("integers: C[%d] = %v, want %v", i, got[i], want[i])
					}
				}
			}
			A, B = normals(c.m*c.k), normals(c.k*c.n)
			want = ref(A, B)
			if e := relErr(emuTF32x3(c.m, c.n, c.k, c.ta, c.tb, A, B, c.split, false), want); e > 1e-6 {
				t.Errorf("normal draws: relative error %.3g with three TF32 products, want <= 1e-6", e)
			}
			if e := relErr(emuTF32x3(c.m, c.n, c.k, c.ta, c.tb, A, B, c.split, true), want); c.k >= 16 && e < 1e-4 {
				t.Errorf("normal draws: relative error %.3g with one TF32 product; the check would not tell three from one", e)
			}
		})
	}
}
