package zconn

import (
	"encoding/binary"
	"fmt"
)

// Z85 (ZeroMQ RFC 32) is the text form of CurveZMQ keys: four bytes as
// five characters of base 85.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

var z85Value = func() (v [256]int16) {
	for i := range v {
		v[i] = -1
	}
	for i := range len(z85Alphabet) {
		v[z85Alphabet[i]] = int16(i)
	}
	return v
}()

// Z85Encode encodes b, whose length must be a multiple of 4.
func Z85Encode(b []byte) string {
	out := make([]byte, 0, len(b)/4*5)
	for i := 0; i+4 <= len(b); i += 4 {
		v := binary.BigEndian.Uint32(b[i:])
		var d [5]byte
		for j := 4; j >= 0; j-- {
			d[j] = z85Alphabet[v%85]
			v /= 85
		}
		out = append(out, d[:]...)
	}
	return string(out)
}

// Z85Decode decodes s, whose length must be a multiple of 5.
func Z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("z85: length %d is not a multiple of 5", len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for j := range 5 {
			d := z85Value[s[i+j]]
			if d < 0 {
				return nil, fmt.Errorf("z85: character %q at %d", s[i+j], i+j)
			}
			v = v*85 + uint64(d)
		}
		if v > 0xffffffff {
			return nil, fmt.Errorf("z85: group at %d overflows", i)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(v))
	}
	return out, nil
}

func z85Key(dst *[32]byte, s string) error {
	if len(s) != 40 {
		return fmt.Errorf("want 40 Z85 characters, have %d", len(s))
	}
	b, err := Z85Decode(s)
	if err != nil {
		return err
	}
	copy(dst[:], b)
	return nil
}
