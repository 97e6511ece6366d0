package workerproto

import "fmt"

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
