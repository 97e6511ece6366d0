package interp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

	// Later cells: one function redefined, alternately in the session
	// whose cells the compiler and linker build directly and in one whose
	// cells the go command builds; and the resident memory that the
	// plugins add (they cannot be unloaded).
	gocmd, _, _ := compiledSession(t)
	gocmd.compiled.goCommand = true
	if _, err := evalCell(t, gocmd, "func redefined(n int) int { return n }"); err != nil {
		t.Fatal(err)
	}
	mem0 := memory()
	const redefs = 20
	var direct, viaGo, directCPU, viaGoCPU []time.Duration
	for i := range redefs {
		for _, s := range []*Session{comp, gocmd} {
			if _, err := evalCell(t, s, fmt.Sprintf("func redefined(n int) int { return n + %d }", i)); err != nil {
				t.Fatal(err)
			}
			p := s.compiled.plugins[len(s.compiled.plugins)-1]
			if s == comp {
				if !p.Direct {
					t.Errorf("redefinition %d: built by the go command in the direct session", i)
				}
				direct = append(direct, p.Build+p.Load)
				directCPU = append(directCPU, p.BuildCPU)
			} else {
				viaGo = append(viaGo, p.Build+p.Load)
				viaGoCPU = append(viaGoCPU, p.BuildCPU)
			}
		}
	}
	mem1 := memory()
	perRedef := func(k string) float64 { return (mem1[k] - mem0[k]) / (2 * redefs) }
	median := func(ds []time.Duration) time.Duration {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[len(ds)/2]
	}

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
	fmt.Fprintf(&b, "a one-function cell redefined %d times (later cells), median [min, max]:\n", redefs)
	fmt.Fprintf(&b, "  build+load wall: compiler and linker directly %s [%s, %s], go build %s [%s, %s] (%.2f×)\n",
		ms(median(direct)), ms(slices.Min(direct)), ms(slices.Max(direct)),
		ms(median(viaGo)), ms(slices.Min(viaGo)), ms(slices.Max(viaGo)),
		float64(median(direct))/float64(median(viaGo)))
	fmt.Fprintf(&b, "  build CPU (user+system of the tools): directly %s [%s, %s], go build %s [%s, %s] (%.2f×)\n",
		ms(median(directCPU)), ms(slices.Min(directCPU)), ms(slices.Max(directCPU)),
		ms(median(viaGoCPU)), ms(slices.Min(viaGoCPU)), ms(slices.Max(viaGoCPU)),
		float64(median(directCPU))/float64(median(viaGoCPU)))
	fmt.Fprintf(&b, "  memory per compiled cell (after sync, so the plugins' new files are clean page cache): resident +%.2f MiB, of which private dirty +%.2f MiB (anonymous +%.2f MiB); the rest is the plugin file's pages, which the kernel can drop\n",
		perRedef("Rss"), perRedef("Private_Dirty"), perRedef("Anonymous"))
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

// memory returns the process's memory figures in MiB from
// /proc/self/smaps_rollup (Linux; empty elsewhere): Rss, Private_Dirty,
// Anonymous, ... It syncs first, so that the pages of files just written
// (the plugins) count as the clean page cache they become within
// seconds, not as the process's dirty memory.
func memory() map[string]float64 {
	syncFiles()
	m := map[string]float64{}
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[2] == "kB" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			m[strings.TrimSuffix(f[0], ":")] = kb / 1024
		}
	}
	return m
}

// TestRedefinitionMemory is the memory benchmark of the compiled tier
// (GNNLAB_BENCH_REDEFS=N, e.g. 1000): one function redefined N times in
// one session, without the session's cap on plugins, printing every
// tenth of the way the memory the plugins added (from smaps_rollup,
// after sync) and the build figures. Figures are printed, never
// asserted; each redefinition must answer with its own definition.
// GNNLAB_BENCH_KEEP_PAGES=1 leaves the plugins' file pages resident (the
// baseline of the session's MADV_PAGEOUT).
func TestRedefinitionMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("GNNLAB_BENCH_REDEFS"))
	if n <= 0 {
		t.Skip("a benchmark: GNNLAB_BENCH_REDEFS=1000 go test -run TestRedefinitionMemory ./interp")
	}
	s, out, errw := compiledSession(t)
	s.compiled.noCap = true
	s.compiled.keepPages = os.Getenv("GNNLAB_BENCH_KEEP_PAGES") != ""
	if _, err := evalCell(t, s, "import \"fmt\"\nfunc redefined(n int) int { return n }"); err != nil {
		t.Fatal(err)
	}
	mem0 := memory()
	var cpu, wall, load []time.Duration
	step := max(n/10, 1)
	fmt.Printf("| redefinitions | resident | private dirty | anonymous | build CPU median | build+load median | load median |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for i := 1; i <= n; i++ {
		out.Reset()
		if _, err := evalCell(t, s, fmt.Sprintf("func redefined(n int) int { return n + %d }\nfmt.Println(redefined(1))", i)); err != nil {
			t.Fatal(err)
		}
		if got, want := out.String(), fmt.Sprintf("%d\n", 1+i); got != want {
			t.Fatalf("redefinition %d printed %q, want %q (stderr %q)", i, got, want, errw.String())
		}
		p := s.compiled.plugins[len(s.compiled.plugins)-1]
		cpu, wall, load = append(cpu, p.BuildCPU), append(wall, p.Build+p.Load), append(load, p.Load)
		if i%step == 0 || i == n {
			m := memory()
			med := func(ds []time.Duration) float64 {
				ds = slices.Clone(ds)
				slices.Sort(ds)
				return float64(ds[len(ds)/2]) / 1e6
			}
			fmt.Printf("| %d | +%.0f MiB | +%.0f MiB | +%.0f MiB | %.0f ms | %.0f ms | %.1f ms |\n", i,
				m["Rss"]-mem0["Rss"], m["Private_Dirty"]-mem0["Private_Dirty"], m["Anonymous"]-mem0["Anonymous"], med(cpu), med(wall), med(load))
		}
	}
	if len(s.compiled.plugins) != n+1 {
		t.Errorf("%d plugins loaded, want %d (stderr %q)", len(s.compiled.plugins), n+1, errw.String())
	}
}
