package quant

// PackInt4 packs signed 4-bit codes (each in [−8, 7]) two per byte, the
// first of each pair in the low nibble; dst needs (len(q)+1)/2 bytes. An
// odd count leaves the last high nibble zero.
func PackInt4(dst []byte, q []int8) {
	if len(q) == 0 {
		return
	}
	_ = dst[(len(q)+1)/2-1] // one bounds check for the loop
	for i := 0; i+1 < len(q); i += 2 {
		dst[i/2] = byte(q[i])&0x0f | byte(q[i+1])<<4
	}
	if len(q)%2 == 1 {
		dst[len(q)/2] = byte(q[len(q)-1]) & 0x0f
	}
}

// UnpackInt4 reverses PackInt4 for len(dst) codes, sign-extending each
// nibble.
func UnpackInt4(dst []int8, src []byte) {
	for i := range dst {
		b := src[i/2]
		if i%2 == 1 {
			b >>= 4
		}
		// Shift the nibble to the top and back to sign-extend it.
		dst[i] = int8(b<<4) >> 4
	}
}
