package compiled

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// direct builds a cell's plugin with the compiler and the linker alone,
// as the go command would run them, from an import configuration that
// the session keeps: the go command spends about a third of a later
// cell's build (0.08 of 0.28 s on an idle machine, measured with go
// build -x) loading the module graph and hashing every dependency to
// learn what its cache already holds, and it holds the same thing for
// every cell. Packages the cells have not imported yet are listed (and
// built into the cache) once, by go list -export.
type direct struct {
	env     Env
	tools   string // GOTOOLDIR
	goroot  string
	cc      string
	lang    string            // -lang of the cells' module
	race    bool              // the host was built with -race
	ldflags []string          // the host's -ldflags, then -w
	files   map[string]string // import path -> its archive in the go command's cache
	listed  bool              // the linker's own dependencies are in files
	// off says why cells are built by the go command after all ("" while
	// direct builds work).
	off string
	cpu time.Duration // user and system time of the tools run for the cell
}

// newDirect returns the direct builder for env, or nil when the host's
// flags are ones it does not reproduce (then the go command builds each
// cell).
func newDirect(env Env, modDir string) *direct {
	d := &direct{env: env, files: map[string]string{}}
	for _, f := range env.Flags {
		switch {
		case f == "-race":
			d.race = true
		case strings.HasPrefix(f, "-tags="):
			// Only go list needs them (which files make a package).
		case strings.HasPrefix(f, "-ldflags="):
			fs, err := splitQuoted(strings.TrimPrefix(f, "-ldflags="))
			if err != nil {
				return nil
			}
			d.ldflags = fs
		default:
			return nil // -trimpath, -gcflags, -asmflags: the go command knows them
		}
	}
	for _, v := range env.Vars {
		if strings.HasPrefix(v, "CGO_LDFLAGS=") && v != "CGO_LDFLAGS=" {
			return nil // the go command passes them to the external linker
		}
	}
	out, err := exec.Command(env.GoBin, "env", "GOTOOLDIR", "GOROOT", "CC").Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return nil
	}
	d.tools, d.goroot, d.cc = lines[0], lines[1], lines[2]
	if f := strings.Fields(d.cc); len(f) != 1 {
		return nil // CC with flags: leave it to the go command
	}
	mod, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return nil
	}
	for _, l := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(l, "go "); ok {
			v = strings.TrimSpace(v)
			// go 1.26.0 → -lang=go1.26
			if p := strings.Split(v, "."); len(p) >= 2 {
				v = p[0] + "." + p[1]
			}
			d.lang = "go" + v
		}
	}
	if d.lang == "" {
		return nil
	}
	return d
}

// splitQuoted splits flags as the go command does (words, with single or
// double quotes around a word that holds spaces).
func splitQuoted(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if q := s[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote in %q", s)
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t\n")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out, nil
}

// errStale is a build that failed for want of a file the import
// configuration names (the go command's cache was trimmed or cleaned).
var errStale = errors.New("compiled: the import configuration names a missing file")

// build compiles src's package (in pkgDir, import path path; embedCfg,
// if not empty, is its embed configuration) and links it into the
// plugin so. A *BuildError is the compiler's or linker's complaint about
// the cell.
func (d *direct) build(ctx context.Context, dir, pkgDir, path, so string, src []byte, embedCfg string) error {
	imports, err := importsOf(src)
	if err != nil {
		return &BuildError{Output: err.Error()}
	}
	var missing []string
	if !d.listed {
		missing = append(missing, "runtime/cgo", "runtime")
		if d.race {
			missing = append(missing, "runtime/race")
		}
	}
	for _, p := range imports {
		if _, ok := d.files[p]; !ok && p != "unsafe" && p != "C" {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		if err := d.list(ctx, dir, missing); err != nil {
			return err
		}
		d.listed = true
	}
	cfg := filepath.Join(pkgDir, "importcfg")
	var b bytes.Buffer
	b.WriteString("# import config\n")
	paths := make([]string, 0, len(d.files))
	for p := range d.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if _, err := os.Stat(d.files[p]); err != nil {
			return errStale
		}
		fmt.Fprintf(&b, "packagefile %s=%s\n", p, d.files[p])
	}
	if err := os.WriteFile(cfg, b.Bytes(), 0o644); err != nil {
		return err
	}
	archive := filepath.Join(pkgDir, "_pkg_.a")
	// The flags go build -x shows for a plugin's main package.
	args := []string{"-o", archive, "-p", path, "-lang=" + d.lang, "-complete",
		"-installsuffix", "dynlink", "-goversion", runtime.Version(), "-c=1",
		"-dynlink", "-nolocalimports", "-importcfg", cfg, "-pack"}
	if d.race {
		args = append(args, "-race")
	}
	if embedCfg != "" {
		args = append(args, "-embedcfg", embedCfg)
	}
	args = append(args, "./cell.go")
	if err := d.run(ctx, pkgDir, "compile", args, "./cell.go", filepath.Base(pkgDir)+"/cell.go"); err != nil {
		return err
	}
	args = []string{"-o", so, "-importcfg", cfg, "-installsuffix", "dynlink",
		"-pluginpath", path, "-buildmode=plugin"}
	if d.race {
		args = append(args, "-race")
	}
	args = append(args, d.ldflags...)
	args = append(args, "-extld="+d.cc, archive)
	return d.run(ctx, dir, "link", args, "", "")
}

// run runs a tool; its complaints become a *BuildError, with the cell's
// file (from) named as go build names it (to).
func (d *direct) run(ctx context.Context, dir, tool string, args []string, from, to string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(d.tools, tool), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), d.env.Vars...)
	cmd.Env = append(cmd.Env, "GOROOT="+d.goroot)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	d.cpu += cpuOf(cmd)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s := out.String()
		if from != "" {
			s = strings.ReplaceAll(s, from, to)
		}
		if s == "" {
			s = err.Error()
		}
		return &BuildError{Output: s, Tool: tool}
	}
	return nil
}

// list asks the go command for the archives of pkgs and their
// dependencies, built in plugin mode (it builds what its cache lacks).
func (d *direct) list(ctx context.Context, dir string, pkgs []string) error {
	args := append([]string{"list", "-buildmode=plugin"}, d.env.Flags...)
	args = append(args, "-deps", "-export", "-f", "{{.ImportPath}}={{.Export}}")
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, d.env.GoBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), d.env.Vars...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	d.cpu += cpuOf(cmd)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &BuildError{Output: stderr.String(), Tool: "list"}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		p, file, ok := strings.Cut(sc.Text(), "=")
		if ok && file != "" {
			d.files[p] = file
		}
	}
	return nil
}

// importsOf returns the import paths of a Go file.
func importsOf(src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "cell.go", src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// cpuOf is the user and system time of a command that ran, with that of
// the processes it waited for (the go command's compiler and linker,
// the linker's gcc).
func cpuOf(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
