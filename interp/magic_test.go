package interp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// evalOut runs a cell and returns what it printed, its result text and
// its error.
func evalOut(t *testing.T, s *Session, out *bytes.Buffer, cell string) (string, string, error) {
	t.Helper()
	out.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.Eval(ctx, cell)
	text := ""
	if res.HasValue {
		text = res.Value.Text()
	}
	return out.String(), text, err
}

func TestMagics(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out})
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.txt")
	tests := []struct {
		name   string
		cell   string
		output string // a regexp the printed text must match
		value  string // the result's text, if any
	}{
		{"help", "%help", `(?s)%time CODE .*%%writefile.*!COMMAND.*%gpu.*%history.*%replay`, ""},
		{"time line", "%time 6*7", `CPU times: user .*, sys .*, total .*\nWall time: [0-9.]+ (ns|µs|ms|s)\n`, "42"},
		{"time cell", "%%time\nx := 20\nx + 1", `Wall time: `, "21"},
		{"timeit", "%timeit -n 3 -r 2 x * 2", `^[0-9.]+ (ns|µs|ms) ± [0-9.]+ (ns|µs|ms) per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)\n$`, ""},
		{"timeit auto", "%timeit x + 1", `per loop \(mean ± std\. dev\. of 7 runs, [0-9,]+ loops each\)`, ""},
		{"timeit cell", "%%timeit -n 2 -r 1\ny := 0\nfor i := 0; i < 10; i++ { y += i }", `of 1 run, 2 loops each`, ""},
		{"who", "%who", `(?m)^x +int$`, ""},
		{"env set", "%env GNNLAB_MAGIC_TEST=yes", `env: GNNLAB_MAGIC_TEST=yes`, ""},
		{"env get", "%env GNNLAB_MAGIC_TEST", `^yes\n$`, ""},
		{"env in cells", "import \"os\"\nos.Getenv(\"GNNLAB_MAGIC_TEST\")", ``, `"yes"`},
		{"env list", "%env", `(?m)^GNNLAB_MAGIC_TEST=yes$`, ""},
		{"writefile", "%%writefile " + file + "\nhello\nworld", `^Writing .*hello.txt\n$`, ""},
		{"writefile again", "%%writefile " + file + "\nhi", `^Overwriting `, ""},
		{"writefile append", "%%writefile -a " + file + "\nthere", `^Appending to `, ""},
		{"shell", "!echo from-sh && cat " + file, `^from-sh\nhi\nthere\n$`, ""},
		{"mixed lines", "a := 2\n!echo mid\na * 5", `^mid\n$`, "10"},
		{"gpu", "%gpu", `^(No GPU: .*|GPU 0: .*)`, ""},
		{"reset", "%reset", `reset`, ""},
		{"who after reset", "%who", `empty`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			printed, value, err := evalOut(t, s, &out, tt.cell)
			if err != nil {
				t.Fatalf("Eval(%q) = %v", tt.cell, err)
			}
			if !regexp.MustCompile(tt.output).MatchString(printed) {
				t.Errorf("Eval(%q) printed %q, want a match of %q", tt.cell, printed, tt.output)
			}
			if value != tt.value {
				t.Errorf("Eval(%q) value = %q, want %q", tt.cell, value, tt.value)
			}
		})
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "hi\nthere\n" {
		t.Errorf("%%%%writefile left %q, %v, want %q", b, err, "hi\nthere\n")
	}
	if _, _, err := evalOut(t, s, &out, "x"); err == nil {
		t.Errorf("x after %%reset: no error, want undefined")
	}
}

func TestMagicErrors(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out})
	tests := []struct {
		cell string
		is   error // nil: any *Error
		name string
	}{
		{"%nosuch", ErrUnknownMagic, nameMagic},
		{"%%nosuch\nx", ErrUnknownMagic, nameMagic},
		{"%replay", ErrFrontendMagic, nameMagic},
		{"%history", ErrFrontendMagic, nameMagic},
		{"!exit 3", nil, nameMagic},
		{"%timeit -n zero 1", nil, nameMagic},
		{"%timeit panic(\"x\")", nil, namePanic},
		{"%time undefinedName", nil, nameCompile},
	}
	for _, tt := range tests {
		_, _, err := evalOut(t, s, &out, tt.cell)
		var e *Error
		if !errors.As(err, &e) || e.Name != tt.name {
			t.Errorf("Eval(%q) = %v, want an *Error named %q", tt.cell, err, tt.name)
			continue
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("Eval(%q) = %v, want errors.Is %v", tt.cell, err, tt.is)
		}
	}
}

func TestTimeitLine(t *testing.T) {
	got := TimeitLine([]float64{1000, 1200, 800}, 10000)
	want := "1 µs ± 163 ns per loop (mean ± std. dev. of 3 runs, 10,000 loops each)"
	if got != want {
		t.Errorf("TimeitLine = %q, want %q", got, want)
	}
}

// TestNoValueCalls: `_ = panic("x")` is Go's compile error before it
// runs, and the session's next panic does not hang (it did, after yaegi
// ran the cell); %timeit times a call of no value as a statement.
func TestNoValueCalls(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out})
	var e *Error
	if _, _, err := evalOut(t, s, &out, `_ = panic("x")`); !errors.As(err, &e) || e.Name != nameCompile || e.Value != `panic("x") (no value) used as value` {
		t.Fatalf(`_ = panic("x"): %v, want the compile error "panic("x") (no value) used as value"`, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Eval(ctx, `panic("y")`); !errors.As(err, &e) || e.Name != namePanic || e.Value != "y" {
		t.Fatalf(`panic("y") after it: %v, want the panic "y"`, err)
	}
	if _, _, err := evalOut(t, s, &out, "func hello() {}"); err != nil {
		t.Fatal(err)
	}
	got, _, err := evalOut(t, s, &out, "%timeit -n 2 -r 1 hello()")
	if err != nil || !regexp.MustCompile(`per loop \(mean ± std\. dev\. of 1 run, 2 loops each\)`).MatchString(got) {
		t.Errorf("%%timeit hello() = %q, %v, want its timing", got, err)
	}
}
