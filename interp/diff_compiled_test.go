package interp

import (
	"errors"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/internal/compiled"
)

// knownCompiledDiffs are the programs (or "name/mode") that disagree with
// go run in compiled mode, and why. knownDiffs (the interpreter's) do not
// apply: the compiled tier should run those programs right.
var knownCompiledDiffs = map[string]string{
	"lang_init_funcs/split": knownDiffs["lang_init_funcs/split"],
	"init_order/split":      knownDiffs["init_order/split"],
}

// TestDifferentialCompiled runs the differential corpus with the
// compiled tier on, as one cell and split, against go run. Each cell
// that declares something costs a plugin build (about half a second), so
// by default it runs every 12th program (not under -race unless
// GNNLAB_DIFF_COMPILED is set); GNNLAB_DIFF_COMPILED=all runs them all. Cells the tier does not compile run interpreted, as in
// TestDifferential; the log says how many declarations compiled.
func TestDifferentialCompiled(t *testing.T) {
	if _, err := compiled.Detect(); err != nil {
		t.Skipf("no compiled tier here: %v", err)
	}
	if raceEnabled && os.Getenv("GNNLAB_DIFF_COMPILED") == "" {
		// Each cell's plugin is built with -race too (a plugin must match
		// its host): the corpus would take minutes; TestCompiled* check
		// the tier under the race detector.
		t.Skip("under -race: set GNNLAB_DIFF_COMPILED=some or all to run it")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "diff", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no differential programs (%v)", err)
	}
	sort.Strings(files)
	if os.Getenv("GNNLAB_DIFF_COMPILED") != "all" {
		// Every 12th, and those the interpreter gets wrong.
		var some []string
		for i, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".go")
			if _, wrong := knownDiffs[name]; i%12 == 0 || wrong {
				some = append(some, f)
			}
		}
		files = some
	}
	want, err := toolchainRuns(t, files)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			t.Skipf("no go toolchain: %v", err)
		}
		t.Fatal(err)
	}
	runs, agree, decls, compiledDecls := 0, 0, 0, 0
	why := map[string]int{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".go")
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"cell", "split"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				reason, known := "", false
				if r, ok := knownCompiledDiffs[name+"/"+mode]; ok {
					reason, known = r, true
				} else if r, ok := knownCompiledDiffs[name]; ok {
					reason, known = r, true
				}
				if known && strings.HasPrefix(reason, "hangs") {
					t.Skipf("known difference (not run): %s", reason)
				}
				if raceEnabled && startsGoroutines(string(src)) {
					t.Skip("starts goroutines: not run under the race detector (races inside yaegi)")
				}
				cells, err := diffCells(string(src), mode == "split")
				if err != nil {
					t.Fatal(err)
				}
				// Compiled programs change the process's standard logger
				// (log.SetOutput, SetFlags): restore it for the tests after.
				lw, lf, lp := log.Writer(), log.Flags(), log.Prefix()
				defer func() { log.SetOutput(lw); log.SetFlags(lf); log.SetPrefix(lp) }()
				var sess *Session
				got := sessionRun(t, cells, func(s *Session) {
					s.compiled.force = true
					sess = s
				})
				if tier := sess.compiled.tier; tier != nil {
					for _, d := range tier.Decisions() {
						decls++
						if d.Compiled {
							compiledDecls++
						} else {
							why[d.Why]++
						}
					}
					tier.Close()
				}
				runs++
				problem := compareRuns(want[file], got)
				if problem == "" {
					agree++
				}
				w := want[file]
				switch {
				case problem == "" && known:
					t.Errorf("listed in knownCompiledDiffs (%s) but agrees with go run: remove it", reason)
				case problem != "" && known:
					t.Skipf("known difference: %s", reason)
				case problem != "":
					t.Errorf("%s\ngo run: exit %d, stdout:\n%s\nstderr: %s\nsession: exit %d, stdout:\n%s\nerror: %s",
						problem, w.Exit, w.Stdout, firstLine(w.Stderr), got.Exit, got.Stdout, got.Stderr)
				}
			})
		}
	}
	t.Logf("compiled mode: %d programs, %d runs, %d agree with go run; %d of %d declarations compiled",
		len(files), runs, agree, compiledDecls, decls)
	for w, n := range why {
		t.Logf("%d interpreted: %s", n, w)
	}
}
