package interp

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkoutVersion returns the version of module path that the
// checkout's go.mod requires: the cells' module requires the same, and
// the binary links it.
func checkoutVersion(t *testing.T, path string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", path)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("the checkout does not require %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}

// fakeVersions serves versions of golang.org/x/text that do not exist
// from a module proxy that the test writes, each with one package,
// golang.org/x/text/transform, holding a variable Nop (as the real one
// does), and removes what the go command downloads of them into the
// module cache at the end. The modules that the binary links come from
// the cache as usual.
func fakeVersions(t *testing.T, versions ...string) {
	t.Helper()
	const mod = "golang.org/x/text"
	proxy := t.TempDir()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimSpace(string(out))
	for _, v := range versions {
		writeProxyVersion(t, proxy, mod, v, map[string]string{
			"go.mod":                 "module " + mod + "\n\ngo 1.18\n",
			"transform/transform.go": "package transform\n\n// Nop is not the real one.\nvar Nop = 0\n",
		})
		t.Cleanup(func() {
			files, _ := filepath.Glob(filepath.Join(root, "cache", "download", filepath.FromSlash(mod), "@v", v+".*"))
			for _, f := range files {
				os.Remove(f)
			}
			removeTree(filepath.Join(root, filepath.FromSlash(mod)+"@"+v))
		})
	}
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
}

// removeTree removes a folder that the go command made read-only.
func removeTree(d string) {
	filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(d)
}

// TestCompiledModuleOlderRequirement: a module that imports a package of
// an older version of a module the binary links (as github.com/samber/lo
// v1.53.0 imports golang.org/x/text v0.22.0, and the binary links
// v0.28.0)
// compiles with the binary's version, as minimal version selection
// decides; one that requires a newer version is refused, naming both
// versions. The compiled tier refused both before ("it requires
// golang.org/x/text@v0.22.0, and the binary was built with v0.28.0").
func TestCompiledModuleOlderRequirement(t *testing.T) {
	needGo(t)
	built := checkoutVersion(t, "golang.org/x/text")
	const older, newer = "v0.0.0-20000101000000-6e6e6c616230", "v0.999.0"
	fakeVersions(t, older, newer)
	for _, tc := range []struct {
		required string
		compiles bool
	}{{older, true}, {newer, false}} {
		// %go get of the module puts the requirement in the session's
		// go.mod, as %go get github.com/samber/lo does (a local module's
		// requirements stay in its own go.mod).
		dir := t.TempDir()
		files, rename := uniqueModule(map[string]string{
			"go.mod":   "module example.com/greet\n\ngo 1.22\n",
			"greet.go": "package greet\n\nfunc Hello(name string) string { return \"hello, \" + name }\n",
		})
		writeTree(t, dir, files)
		s, out, errw := compiledSession(t)
		if _, err := evalCell(t, s, "%go get golang.org/x/text@"+tc.required+" "+dir); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		prog := rename.Replace("import (\n\t\"fmt\"\n\n\t\"example.com/greet\"\n)\n\nfunc main() { fmt.Println(greet.Hello(\"mvs\")) }\nmain()")
		if _, err := evalCell(t, s, prog); err != nil || out.String() != "hello, mvs\n" {
			t.Errorf("x/text %s: %v, printed %q (stderr %q)", tc.required, err, out.String(), errw.String())
		}
		if got := compiledIn(s, s.count)["main"]; got != tc.compiles {
			t.Errorf("x/text %s: compiled %v, want %v (stderr %q)", tc.required, got, tc.compiles, errw.String())
		}
		if !tc.compiles {
			want := "it requires golang.org/x/text@" + newer + ", newer than the " + built + " the binary was built with"
			if !strings.Contains(errw.String(), want) {
				t.Errorf("stderr %q, want the notice %q", errw.String(), want)
			}
		}
	}
}
