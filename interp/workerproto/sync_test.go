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
