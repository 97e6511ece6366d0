package repl_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/repl"
	"github.com/gnnlab/gnnlab/interp/worker"
)

// The test binary doubles as "gnnlab worker" (argument "worker") and as
// "gnnlab repl" (GNNLAB_TEST_REPL=1), so that the tests run the REPL as a
// real process whose stdin is a pipe.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(worker.Main())
	}
	if os.Getenv("GNNLAB_TEST_REPL") == "1" {
		os.Exit(repl.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runREPL pipes input into a REPL process and returns its stdout, stderr
// and exit status.
func runREPL(t *testing.T, input string) (string, string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), "GNNLAB_TEST_REPL=1", "TMPDIR="+t.TempDir(), "GNNLAB_REPL_HISTORY="+t.TempDir()+"/history")
	cmd.Stdin = strings.NewReader(input)
	// A worker left holding stdout must not keep Run waiting after the kill.
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the repl did not finish within 90 s: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("repl: %v", err)
	}
	return stdout.String(), stderr.String(), code
}

func TestPipe(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		stdout string // regexp
		stderr string // regexp
		code   int
	}{
		{"value", "x := 2\nx*21\n", `^42\n$`, `^$`, 0},
		{"multi-line", "func double(n int) int {\n\treturn n * 2\n}\ndouble(4)\n", `^8\n$`, `^$`, 0},
		{"print and value", "import \"fmt\"\nfmt.Println(\"hello\")\n\"done\"\n", `^hello\n"done"\n$`, `^$`, 0},
		{"error goes on", "undefinedName\n1 + 1\n", `^2\n$`, `undefined: undefinedName`, 1},
		{"no final newline", "3 * 3", `^9\n$`, `^$`, 0},
		{"magics", "%time 6*7\n%history\n", `(?s)Wall time: .*\n42\n  1: %time 6\*7\n  2: %history\n`, `^$`, 0},
		{"cell magic", "%%time\ny := 5\ny + 1\n", `(?s)Wall time: .*6\n$`, `^$`, 0},
		{"image", "import (\n\t\"image\"\n)\nimage.NewRGBA(image.Rect(0, 0, 4, 3))\n", `^<image 4x3>\n\[image/png saved to .*gnnlab-.*\.png\]\n$`, `^$`, 0},
		{"crash", "import \"time\"\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)\n7\n", `^7\n$`, `(?s)panic: boom.*The Go worker process died`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runREPL(t, tt.input)
			if !regexp.MustCompile(tt.stdout).MatchString(stdout) {
				t.Errorf("stdout = %q, want a match of %q", stdout, tt.stdout)
			}
			if !regexp.MustCompile(tt.stderr).MatchString(stderr) {
				t.Errorf("stderr = %q, want a match of %q", stderr, tt.stderr)
			}
			if code != tt.code {
				t.Errorf("exit status = %d, want %d", code, tt.code)
			}
		})
	}
}

func TestBraille(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for x := 0; x < 8; x++ {
		img.Set(x, 7, color.Black) // a baseline
		img.Set(0, x, color.Black) // an axis
	}
	got := repl.Braille(img, 4, 2)
	want := "⡇\n⣇⣀⣀⣀\n"
	if got != want {
		t.Errorf("Braille(axes) = %q, want %q", got, want)
	}
	if got := repl.Braille(image.NewGray(image.Rect(0, 0, 0, 0)), 4, 2); got != "" {
		t.Errorf("Braille(empty) = %q, want \"\"", got)
	}
}
