package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The pipelined tensor-core GEMM's tiling (kernels/gemm_bf16.cu,
// gemm_bf16p) written out in Go: the shared-memory layout of a k-step's
// tiles (gp_off, padded or swizzled, k-steps of 16, 32 or 64), the
// cp.async copies that fill them (gp_tile_load, V halves a copy), the
// resident panel of B (gp_panel_load), the ldmatrix addresses of each
// lane and what ldmatrix hands each lane, and the mma.sync m16n8k16
// fragments and accumulators, so that TestGEMMBF16TileEmulated checks, on
// the CPU, that the kernels' index arithmetic multiplies the right
// values for every tile width, form and k-step that GEMMBF16Big and the
// 48 KB kernels use, and that the eight rows of each matrix an ldmatrix
// reads lie in distinct banks. It mirrors the CUDA by hand: a change to one needs
// the same change to the other.

const emuBM = 128

func emuOff(rows int, kmaj, sw bool, bk, r, k int) int {
	if !kmaj {
		if !sw {
			return r*(bk+8) + k
		}
		c := bk / 8
		rs := map[int]int{16: 2, 32: 1, 64: 0}[bk]
		return r*bk + ((((k >> 3) ^ (r >> rs)) & (c - 1)) << 3) + (k & 7)
	}
	if sw {
		return k*rows + ((((r>>3)^k)&7)|((r>>3)&^7))*8 + (r & 7)
	}
	return k*(rows+8) + r
}

// emuTileLoad is gp_tile_load: count copies of v values each.
func emuTileLoad(t *testing.T, sm []float64, rows int, kmaj, sw bool, bk, v int, src []float64, ld, r0, lim, k0, kend int) {
	count := rows * bk / v
	for c := range count {
		var r, k int
		if !kmaj {
			r, k = c/(bk/v), (c%(bk/v))*v
		} else {
			k, r = c/(rows/v), (c%(rows/v))*v
		}
		gr, gk := r0+r, k0+k
		ok := gr < lim && gk < kend
		dst := emuOff(rows, kmaj, sw, bk, r, k)
		if dst%v != 0 {
			t.Fatalf("copy to %d not aligned to its %d halves", dst, v)
		}
		for e := range v {
			sm[dst+e] = 0
			if ok && kmaj {
				sm[dst+e] = src[gk*ld+gr+e]
			} else if ok {
				sm[dst+e] = src[gr*ld+gk+e]
			}
		}
	}
}

// emuLdsm is ldmatrix.x4 (trans: .trans): lane l gives the address of row
// l%8 of matrix l/8; each lane gets two values of each matrix.
func emuLdsm(t *testing.T, sm []float64, addr func(l int) int, trans bool) (out [32][4][2]float64) {
	for m := range 4 {
		var rows [8][]float64
		banks := map[int]bool{}
		for i := range 8 {
			a := addr(8*m + i)
			if a%8 != 0 {
				t.Fatalf("ldmatrix row at %d not 16-byte aligned", a)
			}
			rows[i] = sm[a : a+8]
			banks[a/8%8] = true
		}
		if len(banks) != 8 {
			// The eight 16-byte rows of a matrix in fewer than eight of
			// the 128-byte bank groups' slots: a bank conflict.
			t.Fatalf("ldmatrix matrix %d: its 8 rows fall in %d distinct bank slots", m, len(banks))
		}
		for l := range 32 {
			if !trans {
				out[l][m] = [2]float64{rows[l/4][2*(l%4)], rows[l/4][2*(l%4)+1]}
			} else {
				out[l][m] = [2]float64{rows[2*(l%4)][l/4], rows[2*(l%4)+1][l/4]}
			}
		}
	}
	return out
}

type emuCase struct {
	ta, tb          bool
	bn, kr, wnc, bk int
	sw              bool
	v, m, n, k      int
}

// emuGEMM runs one case's tiles as the kernel's 8 warps would and returns
// C (m x n).
func emuGEMM(t *testing.T, c emuCase, A, B []float64) []float64 {
	m, n, k, bk, bn := c.m, c.n, c.k, c.bk, c.bn
	lda, ldb := k, n
	if c.ta {
		lda = m
	}
	if c.tb {
		ldb = k
	}
	wn := bn / c.wnc
	wm := 8 / wn
	mi, nj := emuBM/wm/16, c.wnc/8
	chunk := (k + bk - 1) / bk * bk
	C := make([]float64, m*n)
	aEl := emuBM * (bk + 8)
	bEl := bk * (bn + 8)
	if c.tb {
		bEl = bn * (bk + 8)
	}
	for m0 := 0; m0 < m; m0 += emuBM {
		for n0 := 0; n0 < n; n0 += bn {
			acc := make([]float64, 8*32*mi*nj*4)
			at := func(w, l, i, j, q int) *float64 { return &acc[(((w*32+l)*mi+i)*nj+j)*4+q] }
			var panel []float64
			if c.kr > 0 {
				if chunk > c.kr {
					t.Fatalf("chunk %d past the panel's %d k-rows", chunk, c.kr)
				}
				if c.tb {
					panel = make([]float64, bn*(c.kr+8))
				} else {
					panel = make([]float64, c.kr*(bn+8))
				}
				for r := range bn {
					for kk := 0; kk < k && n0+r < n; kk++ {
						if c.tb {
							panel[r*(c.kr+8)+kk] = B[(n0+r)*k+kk]
						} else {
							panel[kk*(bn+8)+r] = B[kk*n+n0+r]
						}
					}
				}
			}
			for ck, k0 := 0, 0; k0 < chunk; ck, k0 = ck+1, k0+bk {
				sa := make([]float64, aEl)
				emuTileLoad(t, sa, emuBM, c.ta, c.sw, bk, c.v, A, lda, m0, m, k0, k)
				var sb []float64
				if c.kr == 0 {
					sb = make([]float64, bEl)
					emuTileLoad(t, sb, bn, !c.tb, c.sw, bk, c.v, B, ldb, n0, n, k0, k)
				}
				for w := range 8 {
					wm0, wn0 := (w/wn)*mi*16, (w%wn)*c.wnc
					for ks := 0; ks < bk; ks += 16 {
						af := make([][32][4][2]float64, mi)
						for i := range mi {
							r := wm0 + i*16
							if !c.ta {
								af[i] = emuLdsm(t, sa, func(l int) int { return emuOff(emuBM, false, c.sw, bk, r+(l&15), ks+(l>>4)*8) }, false)
							} else {
								af[i] = emuLdsm(t, sa, func(l int) int { return emuOff(emuBM, true, c.sw, bk, r+((l>>3)&1)*8, ks+(l&7)+(l>>4)*8) }, true)
							}
						}
						bf := make([][32][2][2]float64, nj)
						for j := 0; j < nj; j += 2 {
							col, kk := wn0+j*8, ck*bk+ks
							var q [32][4][2]float64
							switch {
							case c.kr > 0 && c.tb:
								q = emuLdsm(t, panel, func(l int) int { return (col+(l&7)+(l>>4)*8)*(c.kr+8) + kk + ((l>>3)&1)*8 }, false)
							case c.kr > 0:
								q = emuLdsm(t, panel, func(l int) int { return (kk+(l&7)+((l>>3)&1)*8)*(bn+8) + col + (l>>4)*8 }, true)
							case c.tb:
								q = emuLdsm(t, sb, func(l int) int { return emuOff(bn, false, c.sw, bk, col+(l&7)+(l>>4)*8, ks+((l>>3)&1)*8) }, false)
							default:
								q = emuLdsm(t, sb, func(l int) int { return emuOff(bn, true, c.sw, bk, col+(l>>4)*8, ks+(l&7)+((l>>3)&1)*8) }, true)
							}
							for l := range 32 {
								bf[j][l] = [2][2]float64{q[l][0], q[l][1]}
								bf[j+1][l] = [2][2]float64{q[l][2], q[l][3]}
							}
						}
						// mma.sync m16n8k16: the fragments' rows, columns and k.
						for i := range mi {
							var a [16][16]float64
							for l := range 32 {
								g, q := l>>2, l&3
								f := af[i][l]
								a[g][2*q], a[g][2*q+1] = f[0][0], f[0][1]
								a[g+8][2*q], a[g+8][2*q+1] = f[1][0], f[1][1]
								a[g][2*q+8], a[g][2*q+9] = f[2][0], f[2][1]
								a[g+8][2*q+8], a[g+8][2*q+9] = f[3][0], f[3][1]
							}
							for j := range nj {
								var b [16][8]float64
								for l := range 32 {
									g, q := l>>2, l&3
									b[2*q][g], b[2*q+1][g] = bf[j][l][0][0], bf[j][l][0][1]
									b[2*q+8][g], b[2*q+9][g] = bf[j][l][1][0], bf[j][l][1][1]
								}
								for l := range 32 {
									g, q := l>>2, l&3
									for e, rc := range [4][2]int{{g, 2 * q}, {g, 2*q + 1}, {g + 8, 2 * q}, {g + 8, 2*q + 1}} {
										s := 0.0
										for p := range 16 {
											s += a[rc[0]][p] * b[p][rc[1]]
										}
										*at(w, l, i, j, e) += s
									}
								}
							}
						}
					}
				}
			}
			for w := range 8 {
				wm0, wn0 := (w/wn)*mi*16, (w%wn)*c.wnc
				for l := range 32 {
					g, q := l>>2, l&3
					for i := range mi {
						for j := range nj {
							for e := range 4 {
								r, col := m0+wm0+i*16+g+(e>>1)*8, n0+wn0+j*8+q*2+(e&1)
								if r < m && col < n {
									C[r*n+col] = *at(w, l, i, j, e)
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

// TestGEMMBF16TileEmulated runs the pipelined GEMM's tiling on the CPU
// (see emuOff) for the tile widths, k-steps, forms and copy widths of
// GEMMBF16Big's kernels (and two 48 KB ones, whose kernels passed on the
// device: the emulation's check on itself) on small integer matrices
// whose products are exact, and compares every element with the product.
func TestGEMMBF16TileEmulated(t *testing.T) {
	for _, c := range []emuCase{
		{false, false, 256, 256, 64, 32, true, 8, 130, 264, 72}, // sm80_gemm_bf16dr_nn_256
		{false, true, 256, 256, 64, 32, true, 4, 130, 260, 68},  // sm80_gemm_bf16dr_nt_256
		{false, false, 256, 0, 64, 32, true, 8, 136, 264, 72},   // sm80_gemm_bf16d_nn_256
		{true, false, 256, 0, 64, 32, true, 8, 136, 264, 72},    // sm80_gemm_bf16d_tn_256
		{false, true, 256, 0, 64, 32, true, 4, 132, 260, 68},    // sm80_gemm_bf16d_nt_256, 8-byte copies
		{false, false, 128, 256, 32, 32, true, 2, 130, 134, 34}, // sm80_gemm_bf16dr_nn_128, 4-byte copies
		{false, true, 128, 0, 32, 32, true, 8, 130, 120, 40},    // sm80_gemm_bf16d_nt_128
		{true, false, 64, 0, 32, 32, true, 8, 136, 48, 64},      // sm80_gemm_bf16d_tn_64
		{false, true, 64, 256, 32, 32, true, 8, 136, 48, 40},    // sm80_gemm_bf16dr_nt_64
		{false, false, 64, 0, 32, 32, true, 4, 132, 64, 36},     // sm80_gemm_bf16d_nn_64
		{false, false, 128, 0, 32, 16, true, 8, 136, 128, 40},   // sm80_gemm_bf16s_nn_128 (48 KB)
		{true, false, 128, 0, 32, 16, false, 8, 136, 128, 40},   // sm80_gemm_bf16p_tn_128 (48 KB)
	} {
		t.Run(fmt.Sprintf("T%v%v_bn%d_kr%d_bk%d_v%d", c.ta, c.tb, c.bn, c.kr, c.bk, c.v), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(c.m), uint64(c.n)))
			A, B := make([]float64, c.m*c.k), make([]float64, c.k*c.n)
			for i := range A {
				A[i] = float64(r.IntN(7) - 3)
			}
			for i := range B {
				B[i] = float64(r.IntN(7) - 3)
			}
			C := emuGEMM(t, c, A, B)
			bad := 0
			for i := range c.m {
				for j := range c.n {
					want := 0.0
					for q := range c.k {
						av, bv := A[i*c.k+q], B[q*c.n+j]
						if c.ta {
							av = A[q*c.m+i]
						}
						if c.tb {
							bv = B[j*c.k+q]
						}
						want += av * bv
					}
					if C[i*c.n+j] != want {
						if bad++; bad <= 3 {
							t.Errorf("C[%d,%d] = %v, want %v", i, j, C[i*c.n+j], want)
						}
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d values wrong", bad, c.m*c.n)
			}
		})
	}
}
