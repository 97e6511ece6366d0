package compiled

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Module is the module path of the checkout that plugins link against.
const Module = "github.com/gnnlab/gnnlab"

// Env is what building a plugin for this process needs: the toolchain,
// the checkout the process was built from and the flags it was built
// with (a plugin must match its host in all three).
type Env struct {
	GoBin    string   // the go command
	Checkout string   // the root of the checkout (its go.mod)
	Flags    []string // build flags of the host: -race, -tags, -trimpath, ...
	Vars     []string // environment of the go command: CGO_ENABLED=1, GOAMD64, ...
}

// Reason is why the compiled tier cannot work in this process: its text
// is the one-line notice the session prints once.
type Reason struct{ Text string }

func (r *Reason) Error() string { return r.Text }

var detect = sync.OnceValues(detectEnv)

// Detect finds the toolchain and the checkout, once per process. The
// error is a *Reason.
func Detect() (Env, error) { return detect() }

func detectEnv() (Env, error) {
	if !pluginsSupported {
		return Env{}, &Reason{fmt.Sprintf("%s/%s or a build without cgo has no Go plugins", runtime.GOOS, runtime.GOARCH)}
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Env{}, &Reason{"the binary carries no build information"}
	}
	var e Env
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	if set["CGO_ENABLED"] != "1" {
		return Env{}, &Reason{"the binary was built without cgo (CGO_ENABLED=0), which plugins need"}
	}
	if set["-trimpath"] == "true" {
		// Build paths are gone: the checkout can only come from the
		// environment.
		e.Flags = append(e.Flags, "-trimpath")
	}
	if set["-race"] == "true" {
		e.Flags = append(e.Flags, "-race")
	}
	if t := set["-tags"]; t != "" {
		e.Flags = append(e.Flags, "-tags="+t)
	}
	for _, k := range []string{"-gcflags", "-asmflags"} {
		if v := set[k]; v != "" {
			e.Flags = append(e.Flags, k+"="+v)
		}
	}
	// No DWARF in plugins: it takes 40% of the link (measured), and
	// stack traces come from the line tables, which stay.
	e.Flags = append(e.Flags, strings.TrimSpace("-ldflags="+set["-ldflags"]+" -w"))
	e.Vars = []string{"CGO_ENABLED=1", "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local"}
	for _, k := range []string{"GOAMD64", "GOARM64", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS"} {
		if v, ok := set[k]; ok {
			e.Vars = append(e.Vars, k+"="+v)
		}
	}
	dir, err := checkout()
	if err != nil {
		return Env{}, err
	}
	e.Checkout = dir
	e.GoBin, err = goBin()
	if err != nil {
		return Env{}, err
	}
	out, err := exec.Command(e.GoBin, "env", "GOVERSION").Output()
	if err != nil {
		return Env{}, &Reason{fmt.Sprintf("%s env GOVERSION: %v", e.GoBin, err)}
	}
	if v := strings.TrimSpace(string(out)); v != runtime.Version() {
		return Env{}, &Reason{fmt.Sprintf("the go command is %s, the binary was built by %s (plugins need the same toolchain)", v, runtime.Version())}
	}
	return e, nil
}

// checkout finds the checkout: $GNNLAB_CHECKOUT, else the directory this
// file was compiled from (absent with -trimpath).
func checkout() (string, error) {
	dir := os.Getenv("GNNLAB_CHECKOUT")
	if dir == "" {
		_, file, _, ok := runtime.Caller(0)
		if !ok || !filepath.IsAbs(file) {
			return "", &Reason{"the binary was built with -trimpath and GNNLAB_CHECKOUT is not set: no checkout to link against"}
		}
		dir = filepath.Dir(file)
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				return "", &Reason{"the checkout the binary was built from (" + filepath.Dir(file) + ") is gone"}
			}
			dir = up
		}
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", &Reason{fmt.Sprintf("no checkout at %s: %v", dir, err)}
	}
	if !bytes.HasPrefix(mod, []byte("module "+Module+"\n")) {
		return "", &Reason{fmt.Sprintf("%s is not a checkout of %s", dir, Module)}
	}
	return dir, nil
}

// goBin finds the go command of the toolchain that built the binary:
// GOROOT's (when the toolchain is where it was), else the one on PATH.
func goBin() (string, error) {
	//lint:ignore SA1019 the GOROOT of the build is the toolchain a plugin needs
	if root := runtime.GOROOT(); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("go")
	if errors.Is(err, exec.ErrNotFound) {
		return "", &Reason{"no Go toolchain (go is not on PATH)"}
	}
	if err != nil {
		return "", &Reason{err.Error()}
	}
	return p, nil
}
