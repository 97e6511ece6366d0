package runner

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// Param is one parameter given as name=value.
type Param struct{ Name, Value string }

// ParseParam splits "name=value".
func ParseParam(s string) (Param, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || !identRE.MatchString(name) {
		return Param{}, fmt.Errorf("notebook: parameter %q is not name=value with a Go identifier", s)
	}
	return Param{name, value}, nil
}

var identRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{Nd}_]*$`)

// Options configure Run.
type Options struct {
	// Params are injected after the cell tagged "parameters".
	Params []Param
	// Progress receives one line per cell; nil discards them.
	Progress io.Writer
	// Worker is the worker's argv and WorkerEnv its extra environment;
	// empty means this executable with "worker".
	Worker    []string
	WorkerEnv []string
}

// CellError is a cell that failed: Run stops there.
type CellError struct {
	Index     int    // the cell's index in the notebook, from 0
	FirstLine string // its first non-blank line
	Name      string // the error's ename
	Value     string // the error's evalue
}

func (e *CellError) Error() string {
	return fmt.Sprintf("notebook: cell %d (%s) failed: %s: %s", e.Index, e.FirstLine, e.Name, e.Value)
}

// Run executes the code cells of nb in order, replacing their outputs.
func Run(ctx context.Context, nb *Notebook, opts Options) error {
	if len(opts.Params) > 0 {
		InjectParams(nb, opts.Params)
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	r := &runner{}
	c, err := client.Start(ctx, client.Config{
		Command: opts.Worker,
		Env:     opts.WorkerEnv,
		Output:  r.stream,
		Orphan:  r.event,
	})
	if err != nil {
		return err
	}
	defer c.Close()
	total := 0
	for _, cell := range nb.Cells {
		if cell.CellType == "code" {
			total++
		}
	}
	count, done := 0, 0
	for k, cell := range nb.Cells {
		if cell.CellType != "code" {
			continue
		}
		done++
		first := firstLine(string(cell.Source))
		cell.Outputs = nil
		cell.ExecutionCount = nil
		if strings.TrimSpace(string(cell.Source)) == "" {
			continue
		}
		count++
		n := count
		cell.ExecutionCount = &n
		r.begin(cell, n)
		start := time.Now()
		res, err := c.Execute(ctx, client.Cell{Code: string(cell.Source), Count: n}, r.event)
		r.end()
		ce := res.Error
		if res.Page != "" {
			r.stream("stdout", res.Page+"\n")
		}
		if err != nil {
			return fmt.Errorf("notebook: cell %d (%s): %w", k, first, err)
		}
		status := "ok"
		if ce != nil {
			status = "FAILED"
			r.add(&Output{OutputType: "error", Ename: ce.Name, Evalue: ce.Value, Traceback: ce.Traceback}, "")
		}
		fmt.Fprintf(progress, "[%d/%d] cell %d: %s ... %s (%.2f s)\n", done, total, k, first, status, time.Since(start).Seconds())
		if ce != nil {
			return &CellError{Index: k, FirstLine: first, Name: ce.Name, Value: ce.Value}
		}
	}
	return nil
}

func firstLine(src string) string {
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 60 {
				l = l[:57] + "..."
			}
			return l
		}
	}
	return "(empty)"
}

// runner collects the outputs of the running cell.
type runner struct {
	mu        sync.Mutex
	cell      *Cell
	count     int
	clearWait bool
	all       []*Output // every display output of the run, for updates
}

func (r *runner) begin(c *Cell, n int) {
	r.mu.Lock()
	r.cell, r.count, r.clearWait = c, n, false
	r.mu.Unlock()
}

// end closes the cell; a clear_output(wait) with no output after it
// leaves the outputs, as in Jupyter.
func (r *runner) end() {
	r.mu.Lock()
	r.clearWait = false
	r.mu.Unlock()
}

// add appends o to the current cell's outputs.
func (r *runner) add(o *Output, displayID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(o, displayID)
}

func (r *runner) addLocked(o *Output, displayID string) {
	if r.cell == nil {
		return
	}
	if r.clearWait {
		r.cell.Outputs, r.clearWait = nil, false
	}
	o.displayID = displayID
	if o.OutputType == "stream" {
		// Consecutive text of one stream is one output, as in Jupyter.
		if n := len(r.cell.Outputs); n > 0 {
			if last := r.cell.Outputs[n-1]; last.OutputType == "stream" && last.Name == o.Name {
				last.Text += o.Text
				return
			}
		}
	}
	r.cell.Outputs = append(r.cell.Outputs, o)
	if displayID != "" {
		r.all = append(r.all, o)
	}
}

func (r *runner) stream(name, text string) {
	r.add(&Output{OutputType: "stream", Name: name, Text: Source(text)}, "")
}

func (r *runner) event(ev workerproto.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Kind {
	case workerproto.EvResult:
		n := r.count
		r.addLocked(&Output{OutputType: "execute_result", Data: ev.Bundle.Data, Metadata: ev.Bundle.Metadata, ExecutionCount: &n}, "")
	case workerproto.EvDisplay:
		r.addLocked(&Output{OutputType: "display_data", Data: ev.Bundle.Data, Metadata: ev.Bundle.Metadata}, ev.Bundle.DisplayID)
	case workerproto.EvUpdateDisplay:
		// Every output shown under the id, in any cell, is redrawn.
		for _, o := range r.all {
			if o.displayID == ev.Bundle.DisplayID {
				o.Data, o.Metadata = ev.Bundle.Data, ev.Bundle.Metadata
			}
		}
	case workerproto.EvClearOutput:
		if r.cell == nil {
			return
		}
		if ev.Wait {
			r.clearWait = true
		} else {
			r.cell.Outputs = nil
		}
	}
}

// InjectParams inserts (or replaces) the cell tagged
// "injected-parameters" after the cell tagged "parameters".
func InjectParams(nb *Notebook, params []Param) {
	// Drop the injected cell of an earlier run.
	cells := nb.Cells[:0]
	for _, c := range nb.Cells {
		if !c.HasTag("injected-parameters") {
			cells = append(cells, c)
		}
	}
	nb.Cells = cells
	at, declared := 0, ""
	for k, c := range nb.Cells {
		if c.HasTag("parameters") {
			at, declared = k+1, string(c.Source)
			break
		}
	}
	var b strings.Builder
	b.WriteString("// Parameters injected by gnnlab run.\n")
	for _, p := range params {
		if declares(declared, p.Name) {
			fmt.Fprintf(&b, "%s = %s\n", p.Name, GoLiteral(p.Value, true))
		} else {
			fmt.Fprintf(&b, "%s := %s\n", p.Name, GoLiteral(p.Value, false))
		}
	}
	cell := &Cell{
		ID:       "injected-parameters",
		CellType: "code",
		Metadata: map[string]any{"tags": []any{"injected-parameters"}},
		Source:   Source(strings.TrimSuffix(b.String(), "\n")),
	}
	nb.Cells = append(nb.Cells[:at], append([]*Cell{cell}, nb.Cells[at:]...)...)
}

// declares reports whether src defines name (name := ..., var name, or a
// name in a list before := or =).
func declares(src, name string) bool {
	n := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(?m)^\s*(var\s+)?(\w+\s*,\s*)*` + n + `\s*(,\s*\w+\s*)*(:=|=|\s+[\w\[\]*.]+\s*(=|$))`)
	return re.MatchString(src)
}

// GoLiteral writes value as a Go literal: an integer, a float, true or
// false, else a quoted string. For an assignment to a declared variable
// (typed) an integer stays an untyped constant, so that it fits a
// float64 variable too.
func GoLiteral(value string, typed bool) string {
	v := strings.TrimSpace(value)
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXpP_") && !isSpecial(v) {
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !typed && !strings.ContainsAny(s, ".eE") {
			s += ".0" // keep float64 in a := declaration
		}
		return s
	}
	if v == "true" || v == "false" {
		return v
	}
	return strconv.Quote(value)
}

func isSpecial(v string) bool {
	l := strings.ToLower(strings.TrimLeft(v, "+-"))
	return l == "inf" || l == "infinity" || l == "nan"
}
