package workerproto

import (
	"fmt"
	"unicode/utf8"
)

// SyncPrefix starts every sync mark. The NUL byte never occurs in text
// that a cell prints in practice, so a reader looks for it first.
const SyncPrefix = "\x00gnnlab-sync-"

// SyncLen is the length of every sync mark.
const SyncLen = len(SyncPrefix) + 16 + 1

// SyncMark returns sync mark n: SyncPrefix, n in 16 hex digits, a NUL byte.
// It is shorter than PIPE_BUF, so one write of it is never split.
func SyncMark(n uint64) string { return fmt.Sprintf("%s%016x\x00", SyncPrefix, n) }

// ParseSyncMark returns the number of the mark that b (SyncLen bytes)
// holds, and false if b is not a mark.
func ParseSyncMark(b []byte) (uint64, bool) {
	if len(b) != SyncLen || string(b[:len(SyncPrefix)]) != SyncPrefix || b[SyncLen-1] != 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b[len(SyncPrefix) : SyncLen-1] {
		switch {
		case '0' <= c && c <= '9':
			n = n<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// WholeRunes returns the length of b without a UTF-8 sequence that the
// end of b cuts short, so that stream text is sent in whole runes: the
// supervisor holds the rest of a pipe read back for the next, and the
// worker the rest of a write it routes as an EvStream. Bytes that are not
// UTF-8 at all are kept; only an incomplete sequence at the end goes.
func WholeRunes(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return len(b) - k
			}
			break
		}
	}
	return len(b)
}
