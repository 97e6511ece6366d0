package interp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCellsSpeed is the benchmark of the compiled tier (make
// bench-cells; GNNLAB_BENCH_CELLS=1): each program of testdata/bench
// runs built by the toolchain (as go run runs it), as an interpreted cell
// and as a compiled cell, side by side in one run. Each program times its
// own work (best of three, the "elapsed_ns" line), so compilation and
// process start stay out of the ratios; the cell latencies are the tier's
// build and load of each cell's plugin. Timings are printed, never
// asserted; the results must be what the toolchain's binary printed.
func TestCellsSpeed(t *testing.T) {
	if os.Getenv("GNNLAB_BENCH_CELLS") == "" {
		t.Skip("a benchmark: make bench-cells (GNNLAB_BENCH_CELLS=1)")
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "bench", "*.go"))
	sort.Strings(files)
	dir := t.TempDir()
	comp, cout, errw := compiledSession(t)
	// The same without the interrupt checks, to measure what they cost.
	bare, bout, _ := compiledSession(t)
	bare.compiled.noChecks = true
	interpRun := func(src string) (string, time.Duration) {
		var out bytes.Buffer
		s, err := New(Options{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("")})
		if err != nil {
			t.Fatal(err)
		}
		cells, _ := diffCells(src, false)
		if _, err := evalCell(t, s, cells[0]); err != nil {
			t.Fatalf("interpreted: %v", err)
		}
		return splitElapsed(t, out.String())
	}
	type row struct {
		name                 string
		goRun, interp, compd time.Duration
		bare                 time.Duration // compiled without interrupt checks
		latency              time.Duration
		same                 bool
	}
	var rows []row
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".go")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-o", bin, file).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", file, err, out)
		}
		gout, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		wantOut, goRun := splitElapsed(t, string(gout))
		iOut, iTime := interpRun(string(src))
		// The compiled cell: the program without its package clause, in
		// the one compiled session (the first is the session's first cell).
		cout.Reset()
		cells, _ := diffCells(string(src), false)
		if _, err := evalCell(t, comp, cells[0]); err != nil {
			t.Fatalf("compiled: %v (%s)", err, errw)
		}
		cOut, cTime := splitElapsed(t, cout.String())
		bout.Reset()
		if _, err := evalCell(t, bare, cells[0]); err != nil {
			t.Fatalf("compiled without checks: %v", err)
		}
		_, bTime := splitElapsed(t, bout.String())
		rows = append(rows, row{name, goRun, iTime, cTime, bTime, comp.compiled.last, wantOut == iOut && wantOut == cOut})
		if !compiledIn(comp, comp.count)["main"] {
			t.Errorf("%s: not compiled (%s)", name, errw)
		}
	}
	// Cells of statements only, with the tier off and on.
	stmt := func(s *Session) time.Duration {
		best := time.Hour
		for range 20 {
			t0 := time.Now()
			if _, err := evalCell(t, s, "x := 1\nx++"); err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(t0))
		}
		return best
	}
	plain, err := New(Options{Stdout: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	stmtOff, stmtOn := stmt(plain), stmt(comp)

	// Memory: the resident size grows with each plugin (they cannot be
	// unloaded); redefine one function 20 times.
	rss0 := residentMiB()
	const redefs = 20
	var later time.Duration
	for i := range redefs {
		if _, err := evalCell(t, comp, fmt.Sprintf("func redefined(n int) int { return n + %d }", i)); err != nil {
			t.Fatal(err)
		}
		later += comp.compiled.last
	}
	perRedef := (residentMiB() - rss0) / redefs

	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
	var b strings.Builder
	b.WriteString("| program | go run | interpreted cell | compiled cell | interpreted / go run | compiled / go run | compiled without interrupt checks / go run | cell build+load | same output |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		lat := ms(r.latency)
		if i == 0 {
			lat += " (first cell)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f× | %.2f× | %.2f× | %s | %v |\n", r.name, ms(r.goRun), ms(r.interp), ms(r.compd),
			float64(r.interp)/float64(r.goRun), float64(r.compd)/float64(r.goRun), float64(r.bare)/float64(r.goRun), lat, r.same)
	}
	fmt.Fprintf(&b, "\nstatement-only cell (x := 1; x++), best of 20: %s with the tier off, %s with it on\n", ms(stmtOff), ms(stmtOn))
	fmt.Fprintf(&b, "a one-function cell, redefined %d times: build+load %s on average, resident memory +%.1f MiB per redefinition\n", redefs, ms(later/redefs), perRedef)
	fmt.Print(b.String())
	for _, r := range rows {
		if !r.same {
			t.Errorf("%s: the cells printed other results than go run", r.name)
		}
	}
}

// splitElapsed cuts the "elapsed_ns N" line off a program's output.
func splitElapsed(t *testing.T, out string) (string, time.Duration) {
	t.Helper()
	i := strings.LastIndex(out, "elapsed_ns ")
	if i < 0 {
		t.Fatalf("no elapsed_ns line in %q", out)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(out[i+len("elapsed_ns "):]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return out[:i], time.Duration(ns)
}

// residentMiB is the process's resident set size (Linux), or 0.
func residentMiB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseFloat(f[1], 64)
	return pages * float64(os.Getpagesize()) / (1 << 20)
}
