package compiled

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fileResident returns the resident file pages (not the copied, relocated
// ones) of the read-only mappings of the file /proc/self/maps names
// file, in KiB, and how many such mappings there are.
func fileResident(t *testing.T, file string) (kib, mappings int) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			name := strings.TrimSuffix(l, " (deleted)")
			in = strings.HasSuffix(name, " "+file) && f[1][1] != 'w'
			if in {
				mappings++
			}
			continue
		}
		if in && len(f) == 3 && (f[0] == "Rss:" || f[0] == "Anonymous:") {
			n, _ := strconv.Atoi(f[1])
			if f[0] == "Anonymous:" {
				n = -n
			}
			kib += n
		}
	}
	return kib, mappings
}

// TestDropPages: once the kernel has dropped the pages of a loaded
// plugin's read-only mappings, its file already removed, a closure it
// made before runs again and a panic in it still names its cell line
// (the pclntab faults back in from the removed file).
func TestDropPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux drops a plugin's pages")
	}
	b, _ := builders(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	name := "cp_" + b.id
	body := `//line cell[1]:1:1
func mk(k int) func(int) int { return func(x int) int { return x*k + 1 } }
var keep = mk(7)
func F(n int) string { return strconv.Itoa(keep(n)) }
func P() { var a []int
	_ = a[keep(0)+2] }`
	p, err := b.Build(ctx, name, cellSource(name, body))
	if err != nil {
		t.Fatal(err)
	}
	if p.Dropped == 0 {
		t.Fatalf("no pages of %s advised once loaded", p.file)
	}
	run := func() (f, panicked, line string) {
		f = p.Symbols["F"].Call([]reflect.Value{reflect.ValueOf(6)})[0].String()
		func() {
			defer func() {
				panicked = fmt.Sprint(recover())
				line = panicLine()
			}()
			p.Symbols["P"].Call(nil)
		}()
		return f, panicked, line
	}
	f1, p1, l1 := run()
	before, maps := fileResident(t, p.file)
	if maps == 0 {
		t.Fatalf("no read-only mapping of %s in /proc/self/smaps", p.file)
	}
	if n := p.DropPages(); n != p.Dropped {
		t.Errorf("advised %d bytes, %d when loaded", n, p.Dropped)
	}
	after, _ := fileResident(t, p.file)
	t.Logf("%d read-only mappings; file pages resident: %d KiB after running, %d KiB once dropped", maps, before, after)
	if after >= before {
		t.Errorf("file pages resident: %d KiB before the advice, %d KiB after", before, after)
	}
	f2, p2, l2 := run()
	if f1 != "43" || !strings.Contains(p1, "index out of range [3]") || l1 != "cell[1]:5" {
		t.Errorf("before the drop: F(6) = %s, panic %q at %s; want 43, index out of range [3] at cell[1]:5", f1, p1, l1)
	}
	if f2 != f1 || p2 != p1 || l2 != l1 {
		t.Errorf("after the drop: F(6) = %s, panic %q at %s; before: %s, %q at %s", f2, p2, l2, f1, p1, l1)
	}
}
