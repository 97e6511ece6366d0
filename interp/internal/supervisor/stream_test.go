package supervisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// splitAll feeds input to a splitter in chunks of size n and returns the
// text with marks written as <n>.
func splitAll(input string, n int) string {
	var sp splitter
	var b strings.Builder
	for i := 0; i < len(input); i += n {
		sp.feed([]byte(input[i:min(i+n, len(input))]), func(s string) { b.WriteString(s) }, func(m uint64) { fmt.Fprintf(&b, "<%d>", m) })
	}
	b.WriteString(sp.close())
	return b.String()
}

func TestSplitter(t *testing.T) {
	m1, m2 := workerproto.SyncMark(1), workerproto.SyncMark(2)
	tests := []struct{ in, want string }{
		{"hello", "hello"},
		{"a" + m1 + "b" + m2, "a<1>b<2>"},
		{"nul\x00byte" + m1, "nul\x00byte<1>"},
		{"héllo → 世界" + m1, "héllo → 世界<1>"},
		{"\x00gnnlab-sync-zzzz", "\x00gnnlab-sync-zzzz"},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 7, 1000} {
			if got := splitAll(tt.in, n); got != tt.want {
				t.Errorf("splitAll(%q, %d) = %q, want %q", tt.in, n, got, tt.want)
			}
		}
	}
	// Text before a mark is never split inside a rune.
	var sp splitter
	sp.feed([]byte("é")[:1], func(s string) { t.Errorf("feed(half a rune) published %q", s) }, func(uint64) {})
}

func TestCrashFilter(t *testing.T) {
	tests := []struct {
		name       string
		chunks     []string
		passed     string // published at once
		held       string // held back for the crash report
		releasedOK bool
	}{
		{"plain", []string{"a\nb", "c\n"}, "a\nbc\n", "", false},
		{"panic held", []string{"out\npanic: boom\n\ngoroutine 1 [running]:\n"}, "out\n", "panic: boom\n\ngoroutine 1 [running]:\n", false},
		{"trigger split across chunks", []string{"x\npan", "ic: boom\n"}, "x\n", "panic: boom\n", false},
		{"not a trigger after all", []string{"pan", "cake\n"}, "pancake\n", "", false},
		{"mid-line is no trigger", []string{"say panic: no\n"}, "say panic: no\n", "", false},
		{"fatal error", []string{"fatal error: concurrent map writes\n"}, "", "fatal error: concurrent map writes\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f crashFilter
			var out strings.Builder
			for _, c := range tt.chunks {
				f.text(c, func(s string) { out.WriteString(s) })
			}
			if out.String() != tt.passed {
				t.Errorf("passed %q, want %q", out.String(), tt.passed)
			}
			if got := f.take(); got != tt.held {
				t.Errorf("held %q, want %q", got, tt.held)
			}
		})
	}
}

func TestParseCrash(t *testing.T) {
	overflow := "runtime: goroutine stack exceeds 1000000000-byte limit\nruntime: sp=0xc0200e1390 stack=[0xc0200e0000, 0xc0400e0000]\nfatal error: stack overflow\n\nruntime stack:\nruntime.throw()\n"
	tests := []struct {
		stderr, reason, want string
	}{
		{overflow, "", "stack overflow (infinite recursion?)"},
		{"panic: boom\n\ngoroutine 7 [running]:\nmain.f()\n", "", "panic in a goroutine: boom"},
		{"panic: x [recovered]\n", "", "panic in a goroutine: x"},
		{"panic: late [recovered, repanicked]\n", "", "panic in a goroutine: late"},
		{"fatal error: concurrent map writes\n", "", "fatal error: concurrent map writes"},
		{"panic: boom\n", "interrupted", "interrupted"},
		{"", "", "the worker process ended"},
	}
	for _, tt := range tests {
		if got := ParseCrash(tt.stderr, nil, tt.reason).Cause; got != tt.want {
			t.Errorf("ParseCrash(%.30q, nil, %q) = %q, want %q", tt.stderr, tt.reason, got, tt.want)
		}
	}
}

func TestTrimDump(t *testing.T) {
	short := "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n"
	if got := TrimDump(short); got != short {
		t.Errorf("TrimDump(short) = %q, want it unchanged", got)
	}
	long := "panic: boom\n\ngoroutine 1 [running]:\n" + strings.Repeat("frame()\n\t/x.go:1\n", 50)
	got := TrimDump(long)
	if want := "panic: boom\n[101 lines of Go runtime stacks omitted]\n"; got != want {
		t.Errorf("TrimDump(long) = %q, want %q", got, want)
	}
}

func TestReplayable(t *testing.T) {
	cells := []string{"x := 5", "go func() { panic(\"boom\") }()", "s := \"go\"", "y := x"}
	goroutine := Crash{Cause: "panic in a goroutine: boom"}
	got, skipped := Replayable(cells, goroutine)
	if want := []string{"x := 5", "s := \"go\"", "y := x"}; strings.Join(got, "|") != strings.Join(want, "|") || skipped != cells[1] {
		t.Errorf("Replayable(goroutine panic) = %q, skipped %q; want %q, skipped %q", got, skipped, want, cells[1])
	}
	if got, skipped := Replayable(cells, Crash{Cause: "stack overflow (infinite recursion?)"}); len(got) != len(cells) || skipped != "" {
		t.Errorf("Replayable(stack overflow) = %q, skipped %q; want every cell", got, skipped)
	}
	if got, skipped := Replayable(cells[:1], goroutine); len(got) != 1 || skipped != "" {
		t.Errorf("Replayable(no go statement) = %q, skipped %q; want the cell kept", got, skipped)
	}
	if !strings.Contains(strings.Join(goroutine.CellError(3, cells[1]).Traceback, "\n"), "leaves out") {
		t.Errorf("CellError does not say which cell %%replay leaves out")
	}
}
