package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/runner"
	"github.com/gnnlab/gnnlab/interp/worker"
)

// The test binary doubles as "gnnlab worker" (argument "worker") and as
// "gnnlab run" (GNNLAB_TEST_RUN=1).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(worker.Main())
	}
	if os.Getenv("GNNLAB_TEST_RUN") == "1" {
		os.Exit(runner.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// gnnlabRun runs "gnnlab run args..." as a process.
func gnnlabRun(t *testing.T, args ...string) (stderr string, code int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "GNNLAB_TEST_RUN=1")
	// A worker left holding stderr must not keep Run waiting after the kill.
	cmd.WaitDelay = 10 * time.Second
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("gnnlab run %q did not finish within 120 s: %v\n%s", args, err, errb.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return errb.String(), 0
}

func outputsText(c *runner.Cell) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		b.WriteString(o.OutputType + ":")
		b.WriteString(string(o.Text))
		if s, ok := o.Data["text/plain"].(string); ok {
			b.WriteString(s)
		}
		b.WriteString(o.Ename)
		b.WriteString("|")
	}
	return b.String()
}

func TestRunDemo(t *testing.T) {
	dir := t.TempDir()
	out, page := filepath.Join(dir, "out.ipynb"), filepath.Join(dir, "out.html")
	stderr, code := gnnlabRun(t, "testdata/demo.ipynb", "-o", out, "-p", "epochs=5", "-p", "lr=1", "-p", "tag=x y", "--html", page)
	if code != 0 {
		t.Fatalf("gnnlab run exit status %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "[8/8]") {
		t.Errorf("progress on stderr = %q, want [k/8] lines", stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := runner.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("written notebook: %v", err)
	}
	checkStructure(t, raw)
	if len(nb.Cells) != 9 {
		t.Fatalf("cells = %d, want 9 (8 + the injected one)", len(nb.Cells))
	}
	inj := nb.Cells[2]
	if !inj.HasTag("injected-parameters") || string(inj.Source) != "// Parameters injected by gnnlab run.\nepochs = 5\nlr = 1\ntag := \"x y\"" {
		t.Errorf("injected cell = %q (tags %v)", inj.Source, inj.Tags())
	}
	tests := []struct {
		cell  int
		count int // 0: null
		want  string
	}{
		{3, 3, `^stream:epochs 5 lr 1 name cora\nfloat64\n\|$`},
		{4, 4, `^display_data:<b>bold</b>\|display_data:second\|$`},
		{5, 5, `^display_data:epochs 5/5 100% .* in 0:00 loss=0.2\|$`},
		{6, 6, `^execute_result:<image 4x2>\|$`},
		{7, 0, `^$`},
		{8, 7, `^execute_result:10\|$`},
	}
	for _, tt := range tests {
		c := nb.Cells[tt.cell]
		got := outputsText(c)
		if !regexp.MustCompile(tt.want).MatchString(got) {
			t.Errorf("cell %d outputs = %q, want a match of %q", tt.cell, got, tt.want)
		}
		n := 0
		if c.ExecutionCount != nil {
			n = *c.ExecutionCount
		}
		if n != tt.count {
			t.Errorf("cell %d execution_count = %d, want %d", tt.cell, n, tt.count)
		}
	}
	if r := nb.Cells[8].Outputs[0]; r.ExecutionCount == nil || *r.ExecutionCount != 7 {
		t.Errorf("execute_result execution_count = %v, want 7", r.ExecutionCount)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<img src="data:image/png;base64,iVBOR`, "<h1>Demo</h1>", "<em>small</em>", "<b>bold</b>", "In [7]:", `<a href="https://example.org">link</a>`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	checkWithNBFormat(t, out)
}

func TestRunFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.ipynb")
	stderr, code := gnnlabRun(t, "-o", out, "testdata/fail.ipynb")
	if code != 1 {
		t.Fatalf("exit status = %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "cell 2 failed (y := x +)") || !strings.Contains(stderr, "undefinedThing") {
		t.Errorf("stderr = %q, want it to name cell 2 and its first line, and the error", stderr)
	}
	nb, err := runner.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsText(nb.Cells[2]); got != "error:compile error|" {
		t.Errorf("failed cell outputs = %q, want the error", got)
	}
	if c := nb.Cells[3]; c.ExecutionCount != nil || len(c.Outputs) != 0 {
		t.Errorf("cell after the failure ran: count %v, outputs %v", c.ExecutionCount, c.Outputs)
	}
}

func TestRunInProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	nb := &runner.Notebook{NBFormat: 4, NBFormatMinor: 5, Cells: []*runner.Cell{
		{CellType: "code", Source: "import \"fmt\"\nfmt.Println(\"a\")\nfmt.Println(\"b\")"},
		{CellType: "code", Source: "import \"github.com/gnnlab/gnnlab/viz/display\"\nfmt.Println(\"gone\")\ndisplay.Clear(false)\ndisplay.Markdown(\"kept\")"},
		{CellType: "code", Source: "%history"},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := runner.Run(ctx, nb, runner.Options{Worker: []string{exe, "worker"}}); err != nil {
		t.Fatal(err)
	}
	for k, want := range []string{"stream:a\nb\n|", "display_data:kept|", "stream:  1: import \"fmt\"\n"} {
		if got := outputsText(nb.Cells[k]); !strings.HasPrefix(got, want) {
			t.Errorf("cell %d outputs = %q, want prefix %q", k, got, want)
		}
	}
}

// checkStructure checks the JSON that nbformat 4 requires of code cells.
func checkStructure(t *testing.T, raw []byte) {
	t.Helper()
	var nb struct {
		Cells []map[string]json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	for k, c := range nb.Cells {
		var typ string
		json.Unmarshal(c["cell_type"], &typ)
		_, hasCount := c["execution_count"]
		_, hasOutputs := c["outputs"]
		if (typ == "code") != hasCount || (typ == "code") != hasOutputs {
			t.Errorf("cell %d (%s): execution_count present %v, outputs present %v", k, typ, hasCount, hasOutputs)
		}
		if _, ok := c["metadata"]; !ok {
			t.Errorf("cell %d has no metadata", k)
		}
	}
}

// checkWithNBFormat validates with Jupyter's own nbformat when the
// project's venv has it.
func checkWithNBFormat(t *testing.T, path string) {
	t.Helper()
	py := filepath.Join("..", "..", ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Log("no .venv: skipping the nbformat validation")
		return
	}
	cmd := exec.Command(py, "-c", "import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("nbformat.validate: %v\n%s", err, out)
	}
}

func TestInjectParams(t *testing.T) {
	tests := []struct {
		declared string
		param    string
		want     string
	}{
		{"epochs := 3", "epochs=10", "epochs = 10"},
		{"var lr float64 = 0.1", "lr=1", "lr = 1"},
		{"a, b := 1, 2", "b=3", "b = 3"},
		{"epochs := 3", "lr=0.5", "lr := 0.5"},
		{"", "n=7", "n := 7"},
		{"", "f=2e3", "f := 2000.0"},
		{"", "ok=true", "ok := true"},
		{"", "s=hello", `s := "hello"`},
		{"", "s=1.5.2", `s := "1.5.2"`},
		{"", "q=NaN", `q := "NaN"`},
	}
	for _, tt := range tests {
		nb := &runner.Notebook{NBFormat: 4, Cells: []*runner.Cell{
			{CellType: "code", Source: runner.Source(tt.declared), Metadata: map[string]any{"tags": []any{"parameters"}}},
			{CellType: "code", Source: "rest"},
		}}
		p, err := runner.ParseParam(tt.param)
		if err != nil {
			t.Fatal(err)
		}
		runner.InjectParams(nb, []runner.Param{p})
		runner.InjectParams(nb, []runner.Param{p}) // a re-run replaces it
		if len(nb.Cells) != 3 || !nb.Cells[1].HasTag("injected-parameters") {
			t.Fatalf("InjectParams(%q): %d cells, want the injected one second of 3", tt.param, len(nb.Cells))
		}
		if got := strings.Split(string(nb.Cells[1].Source), "\n")[1]; got != tt.want {
			t.Errorf("InjectParams(%q after %q) = %q, want %q", tt.param, tt.declared, got, tt.want)
		}
	}
	for _, bad := range []string{"noequals", "1x=2", "=3"} {
		if _, err := runner.ParseParam(bad); err == nil {
			t.Errorf("ParseParam(%q) = nil error, want one", bad)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		json string
		ok   bool
	}{
		{"minimal", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[]}`, true},
		{"v3", `{"nbformat":3,"nbformat_minor":0,"metadata":{},"cells":[]}`, false},
		{"bad cell type", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"heading","metadata":{},"source":""}]}`, false},
		{"bad stream", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"source":"","execution_count":null,"outputs":[{"output_type":"stream","name":"stdin","text":""}]}]}`, false},
		{"source as string", `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"source":"x := 1","execution_count":null,"outputs":[]}]}`, true},
	}
	for _, tt := range tests {
		_, err := runner.Read(strings.NewReader(tt.json))
		if (err == nil) != tt.ok {
			t.Errorf("Read(%s) error = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !tt.ok && !errors.Is(err, runner.ErrInvalid) {
			t.Errorf("Read(%s) error = %v, want ErrInvalid", tt.name, err)
		}
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# Title", "<h1>Title</h1>\n"},
		{"a **b** `<c>`", "<p>a <strong>b</strong> <code>&lt;c&gt;</code></p>\n"},
		{"- one\n- two", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"},
		{"```\nx < 1\n```", "<pre><code>x &lt; 1</code></pre>\n"},
	}
	for _, tt := range tests {
		if got := runner.Markdown(tt.in); got != tt.want {
			t.Errorf("Markdown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Without -o or --inplace the notebook runs but nothing is written: the
// notebooks in a repository stay as committed. --inplace writes over it.
func TestRunSavesOnlyWhenAsked(t *testing.T) {
	src, err := os.ReadFile("testdata/demo.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	nbPath := filepath.Join(t.TempDir(), "demo.ipynb")
	if err := os.WriteFile(nbPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if stderr, code := gnnlabRun(t, nbPath); code != 0 || !strings.Contains(stderr, "outputs not saved") {
		t.Fatalf("gnnlab run without -o: status %d, stderr:\n%s", code, stderr)
	}
	if got, _ := os.ReadFile(nbPath); !bytes.Equal(got, src) {
		t.Errorf("gnnlab run without -o changed %s", nbPath)
	}
	if stderr, code := gnnlabRun(t, "--inplace", nbPath); code != 0 {
		t.Fatalf("gnnlab run --inplace: status %d, stderr:\n%s", code, stderr)
	}
	if got, _ := os.ReadFile(nbPath); bytes.Equal(got, src) {
		t.Errorf("gnnlab run --inplace left %s unchanged", nbPath)
	}
	if _, code := gnnlabRun(t, "--inplace", "-o", nbPath+".out", nbPath); code != 2 {
		t.Errorf("-o with --inplace: status %d, want 2", code)
	}
}

// Text a cell prints before widgets.Interact stays in the saved notebook:
// Interact clears its own output area before each call of its function,
// and without a frontend that area is the cell itself, so the clear must
// not reach back past the Interact call.
func TestRunInteractKeepsEarlierText(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	nb := &runner.Notebook{NBFormat: 4, NBFormatMinor: 5, Cells: []*runner.Cell{
		{CellType: "code", Source: "import (\n\t\"fmt\"\n\t\"github.com/gnnlab/gnnlab/viz/widgets\"\n)\nfmt.Println(\"before\")\nk := widgets.NewIntSlider(\"k\", 1, 4, 2)\nwidgets.Interact(func() { fmt.Println(\"k is\", k.Value()) }, k)\nfmt.Println(\"after\")"},
		{CellType: "code", Source: "k.SetValue(3)\nfmt.Println(\"set\")"},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := runner.Run(ctx, nb, runner.Options{Worker: []string{exe, "worker"}}); err != nil {
		t.Fatal(err)
	}
	for k, want := range []string{"stream:before\nk is 2\nafter\n|", "stream:k is 3\nset\n|"} {
		if got := outputsText(nb.Cells[k]); got != want {
			t.Errorf("cell %d outputs = %q, want %q", k, got, want)
		}
	}
}
