//go:build unix

package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromium is the browser the test drives.
func chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// need fails the test with how to install what is missing.
func need(t *testing.T, path, how string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: %s", path, how)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestJupyterLab(t *testing.T) {
	lab := startLab(t)
	b := lab.drive(t, "drive.cjs")
	for _, want := range []string{"prints", "PNG", "error box", "interrupted", "members", "signature"} {
		if !strings.Contains(b, want) {
			t.Errorf("drive.cjs did not report the check %q", want)
		}
	}
}

// TestJupyterLabWidgets moves a slider of viz/widgets in JupyterLab with
// jupyterlab_widgets (the ipywidgets 8 front end from PyPI) and reads the
// Go callback's output in the page.
func TestJupyterLabWidgets(t *testing.T) {
	lab := startLab(t)
	b := lab.drive(t, "widgets.cjs")
	for _, want := range []string{"slider shown", "callback output", "slider moved", "button", "plot redrawn"} {
		if !strings.Contains(b, want) {
			t.Errorf("widgets.cjs did not report the check %q", want)
		}
	}
}

// TestJupyterLabDebugger sets a breakpoint in a cell's gutter in
// JupyterLab's debugger, runs the cell and reads the call stack and the
// variables panel, then steps and continues.
func TestJupyterLabDebugger(t *testing.T) {
	lab := startLab(t)
	b := lab.drive(t, "debugger.cjs")
	for _, want := range []string{"debugger on", "breakpoint set", "stopped at line 2", "Next went", "Continue finished"} {
		if !strings.Contains(b, want) {
			t.Errorf("debugger.cjs did not report the check %q", want)
		}
	}
}

// lab is a JupyterLab server with the gnnlab kernel, for one test.
type lab struct {
	ctx      context.Context
	url      string // /lab with the token
	node     string
	tmp, out string
}

// startLab builds gnnlab, installs its kernelspec into a temporary Jupyter
// path, writes browser.ipynb and starts JupyterLab on a free port; all of
// it stops when the test ends. It skips unless GNNLAB_BROWSER_TEST=1.
func startLab(t *testing.T) *lab {
	if os.Getenv("GNNLAB_BROWSER_TEST") != "1" {
		t.Skip("set GNNLAB_BROWSER_TEST=1 (make test-browser) to run JupyterLab in headless Chromium")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	jupyter := filepath.Join(root, ".venv", "bin", "jupyter")
	need(t, jupyter, "run make venv")
	need(t, chromium(), "run install/setup-browser.sh")
	need(t, filepath.Join("node_modules", "playwright-core"), "run install/setup-browser.sh")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is missing: install Node.js (Debian: apt-get install nodejs)")
	}

	tmp := t.TempDir()
	out := os.Getenv("GNNLAB_BROWSER_ARTIFACTS")
	if out == "" {
		out = filepath.Join(tmp, "screenshots")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)

	// gnnlab and its kernelspec, in a Jupyter path of the test's own.
	bin := filepath.Join(tmp, "gnnlab")
	if b, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/gnnlab/gnnlab/cmd/gnnlab").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	prefix := filepath.Join(tmp, "prefix")
	if b, err := exec.CommandContext(ctx, bin, "install", "--prefix", prefix).CombinedOutput(); err != nil {
		t.Fatalf("gnnlab install: %v\n%s", err, b)
	}
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	writeNotebook(t, filepath.Join(work, "browser.ipynb"))

	port := freePort(t)
	token := fmt.Sprintf("gnnlab-%d", time.Now().UnixNano())
	cmd := exec.CommandContext(ctx, jupyter, "lab", "--no-browser", "--allow-root",
		fmt.Sprintf("--port=%d", port), "--ip=127.0.0.1", "--ServerApp.port_retries=0",
		"--IdentityProvider.token="+token, "--ServerApp.root_dir="+work,
		"--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
	cmd.Env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"JUPYTERLAB_SETTINGS_DIR="+filepath.Join(tmp, "settings"),
		"JUPYTERLAB_WORKSPACES_DIR="+filepath.Join(tmp, "workspaces"),
	)
	var labLog bytes.Buffer
	cmd.Stdout, cmd.Stderr = &labLog, &labLog
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("JupyterLab log:\n%s", labLog.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitServer(ctx, base+"/api/status?token="+token, 90*time.Second); err != nil {
		t.Fatalf("JupyterLab did not start: %v", err)
	}
	return &lab{ctx: ctx, url: base + "/lab?token=" + token, node: node, tmp: tmp, out: out}
}

// drive runs a playwright script on browser.ipynb and returns what it
// printed; it fails the test if the script fails.
func (l *lab) drive(t *testing.T, script string) string {
	t.Helper()
	cmd := exec.CommandContext(l.ctx, l.node, script)
	cmd.Env = append(os.Environ(),
		"LAB_URL="+l.url,
		"NOTEBOOK=browser.ipynb",
		"CHROMIUM="+chromium(),
		"OUT="+l.out,
		"PROFILE="+filepath.Join(l.tmp, "chromium-profile"),
	)
	cmd.WaitDelay = 10 * time.Second // a Chromium left holding the output pipe
	b, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", script, b)
	if err != nil {
		t.Fatalf("%s: %v (screenshots in %s)", script, err, l.out)
	}
	t.Logf("screenshots in %s", l.out)
	return string(b)
}

// waitServer polls url until it answers 200.
func waitServer(ctx context.Context, url string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		last = err
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(500 * time.Millisecond)
	}
	return errors.Join(errors.New("timeout"), last)
}

// writeNotebook writes an empty notebook bound to the gnnlab kernel.
func writeNotebook(t *testing.T, path string) {
	t.Helper()
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": "gnnlab", "display_name": "Go (gnnlab)", "language": "go"},
			"language_info": map[string]any{"name": "go"},
		},
		"cells": []any{map[string]any{"cell_type": "code", "id": "first", "metadata": map[string]any{}, "source": "", "execution_count": nil, "outputs": []any{}}},
	}
	b, err := json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
