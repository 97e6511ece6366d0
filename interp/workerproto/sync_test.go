package workerproto

import "testing"

func TestSyncMark(t *testing.T) {
	for _, n := range []uint64{1, 255, 1 << 40, ^uint64(0)} {
		m := SyncMark(n)
		if len(m) != SyncLen {
			t.Errorf("len(SyncMark(%d)) = %d, want %d", n, len(m), SyncLen)
		}
		if got, ok := ParseSyncMark([]byte(m)); !ok || got != n {
			t.Errorf("ParseSyncMark(%q) = %d, %v, want %d, true", m, got, ok, n)
		}
	}
	for _, b := range []string{"", SyncPrefix, SyncPrefix + "000000000000000g\x00", SyncPrefix + "0000000000000001x"} {
		if _, ok := ParseSyncMark([]byte(b)); ok {
			t.Errorf("ParseSyncMark(%q) = true, want false", b)
		}
	}
}

// TestWholeRunes cuts texts at every byte and checks that WholeRunes
// keeps exactly what the cut leaves whole: up to the last rune boundary
// (as ranging over the text yields them) at or before the cut. A byte
// that is not UTF-8 is a rune of its own there, and is kept.
func TestWholeRunes(t *testing.T) {
	for _, s := range []string{"abc", "é", "a€b", "😀x😀", "\xffa\xfe", "naïve — ½ 🙂"} {
		for n := 0; n <= len(s); n++ {
			want := 0
			for i := range s {
				if i <= n {
					want = i
				}
			}
			if n == len(s) {
				want = n
			}
			if got := WholeRunes([]byte(s[:n])); got != want {
				t.Errorf("WholeRunes(%q) = %d, want %d", s[:n], got, want)
			}
		}
	}
}
