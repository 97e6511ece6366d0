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
		kind                 Cause
	}{
		{overflow, "", "stack overflow (infinite recursion?)", CauseStackOverflow},
		{overflow + "\ngoroutine 1 gp=0xc000002380 m=0 mp=0x9d2f20 [running]:\ngnnlab.cells/c2_1.(*tree).walk(0xc0000a4000, 0x3)\n\t/tmp/gnnlab-cells-1/c2_1/_.go:200004 +0x25 fp=0xc0200e13a0 sp=0xc0200e1398 pc=0x7f3a6d2a4b25\ngnnlab.cells/c2_1.(*tree).walk(...)\n\t/tmp/gnnlab-cells-1/c2_1/_.go:200006 +0x31\n",
			"", "stack overflow (infinite recursion?) in (*tree).walk at cell[2]:4, called from cell[2]:6", CauseStackOverflow},
		{"panic: boom\n\ngoroutine 7 [running]:\nmain.f()\n", "", "panic in a goroutine: boom", CauseGoroutinePanic},
		{"panic: x [recovered]\n", "", "panic in a goroutine: x", CauseGoroutinePanic},
		{"panic: late [recovered, repanicked]\n", "", "panic in a goroutine: late", CauseGoroutinePanic},
		{"fatal error: concurrent map writes\n", "", "fatal error: concurrent map writes", CauseConcurrentMap},
		{"fatal error: out of memory\n", "", "fatal error: out of memory", CauseFatal},
		{"panic: boom\n", "the cell did not stop", "the cell did not stop", CauseInterrupted},
		{"", "", "the worker process ended", CauseEnded},
	}
	for _, tt := range tests {
		c := ParseCrash(tt.stderr, nil, CauseInterrupted, tt.reason)
		if c.Cause != tt.want || c.Kind != tt.kind {
			t.Errorf("ParseCrash(%.30q, nil, CauseInterrupted, %q) = %q of kind %d, want %q of kind %d", tt.stderr, tt.reason, c.Cause, c.Kind, tt.want, tt.kind)
		}
	}
	// The kind, not the words of the cause, names the error: a crash whose
	// message mentions an interrupt is still a crash.
	for _, tt := range []struct {
		c    Crash
		want string
	}{
		{Crash{Kind: CauseGoroutinePanic, Cause: "panic in a goroutine: interrupted by the user"}, workerproto.EnameWorkerCrashed},
		{Crash{Kind: CauseInterrupted, Cause: "the cell did not stop"}, workerproto.EnameInterrupted},
	} {
		if got := tt.c.CellError(0, "").Name; got != tt.want {
			t.Errorf("%+v.CellError().Name = %q, want %q", tt.c, got, tt.want)
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
	goroutine := Crash{Kind: CauseGoroutinePanic, Cause: "panic in a goroutine: boom"}
	got, skipped := Replayable(cells, goroutine)
	if want := []string{"x := 5", "s := \"go\"", "y := x"}; strings.Join(got, "|") != strings.Join(want, "|") || skipped != cells[1] {
		t.Errorf("Replayable(goroutine panic) = %q, skipped %q; want %q, skipped %q", got, skipped, want, cells[1])
	}
	if got, skipped := Replayable(cells, Crash{Kind: CauseStackOverflow, Cause: "stack overflow (infinite recursion?)"}); len(got) != len(cells) || skipped != "" {
		t.Errorf("Replayable(stack overflow) = %q, skipped %q; want every cell", got, skipped)
	}
	if got, skipped := Replayable(cells[:1], goroutine); len(got) != 1 || skipped != "" {
		t.Errorf("Replayable(no go statement) = %q, skipped %q; want the cell kept", got, skipped)
	}
	if !strings.Contains(strings.Join(goroutine.CellError(3, cells[1]).Traceback, "\n"), "leaves out") {
		t.Errorf("CellError does not say which cell %%replay leaves out")
	}
}
