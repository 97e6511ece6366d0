package interp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/compiled"
)

// The invalid corpus: each testdata/invalid/*.go is a Go program that the
// Go toolchain refuses to build. A session given the program as one cell
// (without its package clause, so the cell's lines are the file's) must
// fail with a compile error whose traceback holds go build's first error,
// its position written as the cell's: "cell[1]:L:C: message", and the
// lines that continue it ("\tcell[1]:L:C: other declaration of x"). Before this
// corpus, a cell of several of these programs ran without an error
// (clear(0), a, b := 1, 2, 3, a missing return, break outside a loop,
// var x int = nil), and others failed in the interpreter's words.
//
// go build's errors are cached like the differential corpus's runs.

// buildError is go build's first error for a program, with its
// continuation lines.
type buildError struct {
	Line, Col int
	Msg       string
}

func TestDifferentialInvalid(t *testing.T) { differentialInvalid(t, false) }

// TestDifferentialInvalidCompiled runs the invalid corpus with the
// compiled tier on, which builds a cell's declarations with the Go
// toolchain first: the cell must fail as go build does there too.
func TestDifferentialInvalidCompiled(t *testing.T) {
	if _, err := compiled.Detect(); err != nil {
		t.Skipf("no compiled tier here: %v", err)
	}
	if raceEnabled {
		t.Skip("under -race: each cell's plugin would be built with -race (TestCompiled* check the tier under the race detector)")
	}
	differentialInvalid(t, true)
}

// knownInvalidCompiled names the programs that fail otherwise with the
// compiled tier on, and why; the test fails when one agrees.
var knownInvalidCompiled = map[string]string{
	"init_call": "an undefined name is not refused before the compiled tier builds the cell (a function may use a variable that a statement of its own cell defines, which go/types does not see): the build fails, and the tier says on stderr that the cell runs interpreted before the session's error, which is go build's",
}

func differentialInvalid(t *testing.T, compiledTier bool) {
	files, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid programs (%v)", err)
	}
	sort.Strings(files)
	want, err := toolchainErrors(t, files)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			t.Skipf("no go toolchain: %v", err)
		}
		t.Fatal(err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".go")
		t.Run(name, func(t *testing.T) {
			w, ok := want[file]
			if !ok {
				t.Fatalf("go build of %s succeeded: the invalid corpus holds programs Go refuses", file)
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// The cell is the file after its package clause, which go/parser
			// may refuse (defer f): the session must say what go build says.
			_, cell, ok := strings.Cut(string(src), "package main")
			if !ok {
				t.Fatalf("%s does not start with package main", file)
			}
			var out bytes.Buffer
			s, err := New(Options{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("")})
			if err != nil {
				t.Fatal(err)
			}
			if compiledTier {
				s.compiled.force = true
				defer func() {
					if s.compiled.tier != nil {
						s.compiled.tier.Close()
					}
				}()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = s.Eval(ctx, cell)
			// A message may name a position of the program (a goto over a
			// declaration): the cell's.
			msg := buildPosRE.ReplaceAllString(w.Msg, "cell[1]:$1")
			wantLine := fmt.Sprintf("cell[1]:%d:%d: %s", w.Line, w.Col, msg)
			var e *Error
			switch {
			case err == nil:
				t.Fatalf("the cell ran without an error (output %q); go build: %s", out.String(), wantLine)
			case !errors.As(err, &e):
				t.Fatalf("Eval returned %T %v, want *Error", err, err)
			case e.Name != nameCompile:
				t.Errorf("error %s: %s, want a compile error: %s", e.Name, e.Value, wantLine)
			case !strings.Contains(strings.Join(e.Traceback, "\n"), wantLine):
				t.Errorf("error %s: %s\ntraceback %q\nlacks go build's %q", e.Name, e.Value, e.Traceback, wantLine)
			}
			printed := out.Len() > 0 && e != nil && e.Name == nameCompile
			if reason, known := knownInvalidCompiled[name]; compiledTier && known {
				if !printed && !t.Failed() {
					t.Errorf("listed in knownInvalidCompiled (%s) but agrees with go build: remove it from the list", reason)
				}
				t.Skipf("known difference: %s", reason)
			}
			if printed {
				t.Errorf("a cell that does not compile printed %q", out.String())
			}
		})
	}
}

var buildPosRE = regexp.MustCompile(`(?:\./)?p_\w+/main\.go:(\d+:\d+)`)

var buildErrRE = regexp.MustCompile(`^(?:\./)?(p_\w+)/main\.go:(\d+):(\d+): (.*)$`)

// toolchainErrors returns go build's first error for each program that
// does not build, from the cache or by building the missing ones, all in
// one go build.
func toolchainErrors(t *testing.T, files []string) (map[string]buildError, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		cacheDir = os.TempDir()
	}
	cacheDir = filepath.Join(cacheDir, "gnnlab", "diffinvalid")
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, err
	}
	errs := map[string]buildError{}
	missing := map[string]string{} // package -> file
	cachePath := map[string]string{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		h := sha256.Sum256([]byte(runtime.Version() + "\x00build2\x00" + string(src)))
		cp := filepath.Join(cacheDir, hex.EncodeToString(h[:16])+".json")
		cachePath[file] = cp
		if b, err := os.ReadFile(cp); err == nil {
			var be buildError
			if json.Unmarshal(b, &be) == nil {
				if be.Msg != "" {
					errs[file] = be
				}
				continue
			}
		}
		missing["p_"+strings.TrimSuffix(filepath.Base(file), ".go")] = file
	}
	if len(missing) == 0 {
		return errs, nil
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module diffinvalid\n\ngo 1.26\n"), 0o644); err != nil {
		return nil, err
	}
	for pkg, file := range missing {
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			return nil, err
		}
		src, _ := os.ReadFile(file)
		if err := os.WriteFile(filepath.Join(dir, pkg, "main.go"), src, 0o644); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(goBin, "build", "-o", os.DevNull, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
	out, _ := cmd.CombinedOutput()
	found := map[string]buildError{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	last := "" // the package whose first error the line continues
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "\t"); ok && last != "" {
			// A continuation line ("\tFILE:L:C: other declaration of x").
			be := found[last]
			be.Msg += "\n\t" + line
			found[last] = be
			continue
		}
		last = ""
		m := buildErrRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if _, ok := found[m[1]]; ok {
			continue
		}
		last = m[1]
		var be buildError
		fmt.Sscan(m[2], &be.Line)
		fmt.Sscan(m[3], &be.Col)
		be.Msg = m[4]
		found[m[1]] = be
	}
	for pkg, file := range missing {
		be := found[pkg] // zero: the program built
		if be.Msg != "" {
			errs[file] = be
		}
		if b, err := json.Marshal(be); err == nil {
			_ = os.WriteFile(cachePath[file], b, 0o644)
		}
	}
	return errs, nil
}
