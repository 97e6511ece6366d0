// Package f32 holds the float32 vector loops that gnnlib/graph and its
// kernels share.
package f32

// Axpy adds a·x to dst; unrolled by four, which lets the compiler drop the
// bounds checks and keeps four independent adds in flight.
func Axpy(dst, x []float32, a float32) {
	n := len(dst)
	x = x[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		d := dst[i : i+4 : i+4]
		s := x[i : i+4 : i+4]
		d[0] += a * s[0]
		d[1] += a * s[1]
		d[2] += a * s[2]
		d[3] += a * s[3]
	}
	for ; i < n; i++ {
		dst[i] += a * x[i]
	}
}

// Dot returns Σ a[i]·b[i], over len(a), with four partial sums.
func Dot(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		p := a[i : i+4 : i+4]
		q := b[i : i+4 : i+4]
		s0 += p[0] * q[0]
		s1 += p[1] * q[1]
		s2 += p[2] * q[2]
		s3 += p[3] * q[3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
