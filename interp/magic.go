package interp

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"math"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/interp/internal/magic"
)

// ErrFrontendMagic is wrapped by the error of a frontend magic (%history,
// %replay, %restart) that reached the session.
var ErrFrontendMagic = errors.New("interp: this magic is run by the frontend")

// ErrUnknownMagic is wrapped by the error of a magic nobody knows.
var ErrUnknownMagic = errors.New("interp: unknown magic")

// nameMagic names the errors of magics.
const nameMagic = "magic error"

// evalMagic runs a cell that holds magics: a cell magic (first line
// "%%name"), or Go code with magic lines (starting with % or ! in the
// first column) between its pieces. handled is false for a cell without
// magics.
func (s *Session) evalMagic(ctx context.Context, cell string) (res Result, handled bool, err error) {
	lines := strings.Split(cell, "\n")
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first < len(lines) && strings.HasPrefix(lines[first], "%%") {
		name, args, _ := magic.Split(lines[first])
		body := strings.Join(lines[first+1:], "\n")
		res, err := s.cellMagic(ctx, name, args, body)
		return res, true, err
	}
	isMagic := magic.Lines(cell, lines)
	if isMagic == nil {
		return Result{}, false, nil
	}
	// Run the Go pieces and the magic lines in order; the value of the
	// cell is that of its last piece.
	var chunk []string
	flush := func() error {
		code := strings.Join(chunk, "\n")
		chunk = nil
		if strings.TrimSpace(code) == "" {
			return nil
		}
		res, err = s.Eval(ctx, code)
		return err
	}
	for k, l := range lines {
		if !isMagic[k] {
			chunk = append(chunk, l)
			continue
		}
		name, args, _ := magic.Split(l)
		if err := flush(); err != nil {
			return Result{}, true, err
		}
		if res, err = s.lineMagic(ctx, name, args); err != nil {
			return Result{}, true, err
		}
	}
	if err := flush(); err != nil {
		return Result{}, true, err
	}
	return res, true, nil
}

func magicError(format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Name: nameMagic, Value: msg, Traceback: []string{msg}}
}

// lineMagic runs one magic line.
func (s *Session) lineMagic(ctx context.Context, name, args string) (Result, error) {
	switch name {
	case "!":
		return Result{}, s.shell(ctx, args)
	case "help":
		fmt.Fprint(s.stdout, magic.HelpText())
		return Result{}, nil
	case "time":
		return s.timeOnce(ctx, args)
	case "timeit":
		return Result{}, s.timeit(ctx, args, "")
	case "who":
		s.who()
		return Result{}, nil
	case "reset":
		return Result{}, s.reset()
	case "env":
		return Result{}, s.env(ctx, args)
	case "gpu":
		gpuInfo(s)
		return Result{}, nil
	case "go":
		return Result{}, s.goMagic(ctx, args) // modules.go
	case "compiled":
		return Result{}, s.compiledMagic(args) // compiled.go
	case "history", "replay", "restart":
		e := magicError("%%%s is run by the frontend (the kernel, gnnlab repl or gnnlab run), not by the session", name)
		return Result{}, fmt.Errorf("%w: %w", ErrFrontendMagic, e)
	case "writefile", "%time", "%timeit", "%writefile":
		return Result{}, magicError("%%%s is a cell magic: put it alone on the first line of the cell, as %%%%%s", strings.TrimPrefix(name, "%"), strings.TrimPrefix(name, "%"))
	}
	return Result{}, fmt.Errorf("%w: %w", ErrUnknownMagic, magicError("unknown magic %%%s (%%help lists them)", name))
}

// cellMagic runs "%%name args" over body.
func (s *Session) cellMagic(ctx context.Context, name, args, body string) (Result, error) {
	switch name {
	case "%time":
		return s.timeOnce(ctx, body)
	case "%timeit":
		return Result{}, s.timeit(ctx, args, body)
	case "%writefile":
		return Result{}, s.writefile(args, body)
	}
	return Result{}, fmt.Errorf("%w: %w", ErrUnknownMagic, magicError("unknown cell magic %%%s (%%help lists them)", name))
}

func (s *Session) timeOnce(ctx context.Context, code string) (Result, error) {
	u0, s0 := magic.CPUTime()
	t0 := time.Now()
	res, err := s.Eval(ctx, code)
	wall := time.Since(t0)
	u1, s1 := magic.CPUTime()
	user, sys := u1-u0, s1-s0
	fmt.Fprintf(s.stdout, "CPU times: user %s, sys %s, total %s\nWall time: %s\n",
		FormatDuration(user), FormatDuration(sys), FormatDuration(user+sys), FormatDuration(wall))
	return res, err
}

// timeitVar holds the function that %timeit calls.
const timeitVar = helperPrefix + "timeit"

// timeit times code (a line, or body for the cell magic): it is compiled
// once into a function that compiled Go calls in a loop, so that the
// timing is of the code, not of the parsing.
func (s *Session) timeit(ctx context.Context, args, body string) error {
	loops, repeats := 0, 7
	fields := strings.Fields(args)
	var rest []string
	for k := 0; k < len(fields); k++ {
		switch f := fields[k]; {
		case (f == "-n" || f == "-r") && k+1 < len(fields):
			n, err := strconv.Atoi(fields[k+1])
			if err != nil || n < 1 {
				return magicError("%%timeit: %s wants a positive number, not %q", f, fields[k+1])
			}
			if f == "-n" {
				loops = n
			} else {
				repeats = n
			}
			k++
		default:
			rest = fields[k:]
			k = len(fields)
		}
	}
	code := body
	if code == "" {
		// The line form keeps the text after the options as written.
		code = strings.TrimSpace(strings.Join(rest, " "))
		if i := strings.Index(args, strings.Join(rest, " ")); len(rest) > 0 && i >= 0 {
			code = args[i:]
		}
	}
	if strings.TrimSpace(code) == "" {
		return magicError("%%timeit: nothing to time")
	}
	if _, err := parser.ParseExpr(code); err == nil {
		code = "_ = " + code
	}
	// A warm-up run shows the code's errors plainly; a failed compile of
	// the function below could leave yaegi's scope broken.
	_, err := s.Eval(ctx, code)
	var e *Error
	if err != nil && strings.HasPrefix(code, "_ = ") && errors.As(err, &e) && e.Name == nameCompile && strings.Contains(e.Value, "(no value) used as value") {
		// A call of no value (panic("x"), f()) is timed as a statement.
		code = strings.TrimPrefix(code, "_ = ")
		_, err = s.Eval(ctx, code)
	}
	if err != nil {
		return err
	}
	if _, err := s.Eval(ctx, timeitVar+" := func() {\n"+code+"\n}"); err != nil {
		return err
	}
	fn, ok := globalsOf(s.i)[timeitVar].Interface().(func())
	if !ok {
		return magicError("%%timeit: could not compile the code into a function")
	}
	run := func(n int) (d time.Duration, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = &Error{Name: namePanic, Value: fmt.Sprint(r), Traceback: []string{"%timeit: panic: " + fmt.Sprint(r)}}
			}
		}()
		t0 := time.Now()
		for i := 0; i < n; i++ {
			fn()
		}
		return time.Since(t0), nil
	}
	interrupted := func() error {
		if ctx.Err() != nil {
			return &Error{Name: nameInterrupted, Value: "the cell was interrupted", Traceback: []string{"interrupted: %timeit"}}
		}
		return nil
	}
	if loops == 0 {
		// Auto-range as IPython does: 1, 2, 5, 10, 20, 50, ... loops
		// until one run takes 0.2 s.
		for base := 1; loops == 0; base *= 10 {
			for _, m := range []int{1, 2, 5} {
				d, err := run(base * m)
				if err != nil {
					return err
				}
				if err := interrupted(); err != nil {
					return err
				}
				if d >= 200*time.Millisecond || base*m >= 1e8 {
					loops = base * m
					break
				}
			}
		}
	}
	per := make([]float64, repeats)
	for r := range per {
		d, err := run(loops)
		if err != nil {
			return err
		}
		if err := interrupted(); err != nil {
			return err
		}
		per[r] = float64(d) / float64(loops)
	}
	fmt.Fprintln(s.stdout, TimeitLine(per, loops))
	return nil
}

// TimeitLine formats timings of one loop (in nanoseconds, one per run)
// as IPython does: "1.23 ms ± 45.6 µs per loop (mean ± std. dev. of 7
// runs, 100 loops each)".
func TimeitLine(perLoop []float64, loops int) string {
	mean, std := 0.0, 0.0
	for _, x := range perLoop {
		mean += x
	}
	mean /= float64(len(perLoop))
	for _, x := range perLoop {
		std += (x - mean) * (x - mean)
	}
	if len(perLoop) > 1 {
		std = math.Sqrt(std / float64(len(perLoop)))
	}
	plural := func(n int, word string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, word)
		}
		return fmt.Sprintf("%s %ss", groupDigits(n), word)
	}
	return fmt.Sprintf("%s ± %s per loop (mean ± std. dev. of %s, %s each)",
		FormatDuration(time.Duration(mean)), FormatDuration(time.Duration(std)), plural(len(perLoop), "run"), plural(loops, "loop"))
}

func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// FormatDuration writes d with three significant digits in s, ms, µs or
// ns, as IPython's timing magics do.
func FormatDuration(d time.Duration) string {
	x := float64(d)
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'g', 3, 64) + " s"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'g', 3, 64) + " ms"
	case x >= 1e3:
		return strconv.FormatFloat(x/1e3, 'g', 3, 64) + " µs"
	}
	return strconv.FormatFloat(x, 'g', 3, 64) + " ns"
}

// who prints the session's variables (functions included) with their
// types, sorted by name.
func (s *Session) who() {
	g := globalsOf(s.i)
	names := make([]string, 0, len(g))
	for n, v := range g {
		if strings.HasPrefix(n, helperPrefix) || n == "_" || !v.IsValid() {
			continue
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		fmt.Fprintln(s.stdout, "Interactive namespace is empty.")
		return
	}
	sort.Strings(names)
	w := 0
	for _, n := range names {
		w = max(w, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(s.stdout, "%-*s  %s\n", w, n, typeName(g[n]))
	}
}

func typeName(v reflect.Value) string {
	t := v.Type()
	if t.Kind() == reflect.Interface && !v.IsNil() {
		t = v.Elem().Type()
	}
	name := t.String()
	if t.Kind() == reflect.Struct && t.Name() == "" {
		return "struct" // an interpreted struct type: its literal is long
	}
	return name
}

// reset replaces the interpreter by a fresh one and forgets every record;
// cell numbers go on.
func (s *Session) reset() error {
	ni, err := s.newInterp()
	if err != nil {
		return err
	}
	s.i = ni
	s.imports, s.records, s.user = nil, nil, map[string]*declRec{}
	fmt.Fprintln(s.stdout, "The session was reset: no variables, functions, types or imports are left.")
	return nil
}

// envImport is the name under which the magics import "os" into the
// interpreter, whose environment is its own (yaegi virtualises os.Getenv
// and os.Setenv).
const envImport = helperPrefix + "os"

// interpEnv runs an expression on the interpreter's os package.
func (s *Session) interpEnv(ctx context.Context, expr string) (reflect.Value, error) {
	v, err := s.eval(ctx, blockPrefix+expr, nil)
	if err == nil {
		return v, nil
	}
	if _, err := s.eval(ctx, "package main\nimport "+envImport+" \"os\"\n", nil); err != nil {
		return reflect.Value{}, err
	}
	return s.eval(ctx, blockPrefix+expr, nil)
}

// env lists, shows or sets environment variables, in the interpreter and
// in the worker process (for compiled packages and ! commands).
func (s *Session) env(ctx context.Context, args string) error {
	if args == "" {
		v, err := s.interpEnv(ctx, envImport+".Environ()")
		if err != nil {
			return err
		}
		list, _ := v.Interface().([]string)
		sort.Strings(list)
		for _, kv := range list {
			fmt.Fprintln(s.stdout, kv)
		}
		return nil
	}
	name, value, set := strings.Cut(args, "=")
	if !set {
		if n, v, ok := strings.Cut(args, " "); ok {
			name, value, set = n, strings.TrimSpace(v), true
		}
	}
	name = strings.TrimSpace(name)
	if !set {
		v, err := s.interpEnv(ctx, envImport+".Getenv("+strconv.Quote(name)+")")
		if err != nil {
			return err
		}
		fmt.Fprintln(s.stdout, v.Interface())
		return nil
	}
	if _, err := s.interpEnv(ctx, envImport+".Setenv("+strconv.Quote(name)+", "+strconv.Quote(value)+")"); err != nil {
		return err
	}
	if err := os.Setenv(name, value); err != nil {
		return magicError("%%env: %v", err)
	}
	fmt.Fprintf(s.stdout, "env: %s=%s\n", name, value)
	return nil
}

// writefile writes body to the file named in args ("-a FILE" appends).
func (s *Session) writefile(args, body string) error {
	appendTo := false
	fields := strings.Fields(args)
	if len(fields) > 0 && fields[0] == "-a" {
		appendTo, fields = true, fields[1:]
	}
	if len(fields) != 1 {
		return magicError("%%%%writefile: want one file name, as in %%%%writefile [-a] FILE")
	}
	path := fields[0]
	if unq, err := strconv.Unquote(path); err == nil {
		path = unq
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	_, statErr := os.Stat(path)
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	verb := "Writing"
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		verb = "Appending to"
	} else if statErr == nil {
		verb = "Overwriting"
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return magicError("%%%%writefile: %v", err)
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return magicError("%%%%writefile: %v", err)
	}
	if err := f.Close(); err != nil {
		return magicError("%%%%writefile: %v", err)
	}
	fmt.Fprintf(s.stdout, "%s %s\n", verb, path)
	return nil
}

// shell runs a command with sh -c, its output going to the session's
// streams; an interrupt kills it. A failing command is an error of the
// cell, so that a notebook run stops there.
func (s *Session) shell(ctx context.Context, command string) error {
	if command == "" {
		return magicError("!: no command")
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdout, cmd.Stderr = s.stdout, s.errw
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return &Error{Name: nameInterrupted, Value: "the cell was interrupted", Traceback: []string{"interrupted: !" + command}}
	}
	if err != nil {
		return magicError("!%s: %v", command, err)
	}
	return nil
}

// gpuInfo prints the first GPU's name and memory, or why there is none.
// It reaches the device through gnnlib/tensor, where the backend (gnnlib/cuda)
// registers it; without the cuda build tag the error says how to rebuild.
func gpuInfo(s *Session) {
	d, err := tensor.Device("cuda")
	if err != nil {
		fmt.Fprintf(s.stdout, "No GPU: %v. Tensors run on the CPU.\n", err)
		return
	}
	fmt.Fprintf(s.stdout, "GPU 0: %s\n", d)
	if m, err := tensor.MemoryOf(d); err == nil {
		gib := func(b int64) string { return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB" }
		fmt.Fprintf(s.stdout, "memory: %s total, %s free; gnnlab holds %s (peak %s)\n", gib(m.Total), gib(m.Free), gib(m.Reserved), gib(m.Peak))
	}
	// gnnlib/cuda's device says how it maps work onto the GPU: the
	// attention kernels' choice per graph, launches, cached labels.
	if m, ok := d.(interface{ Mapping() string }); ok {
		fmt.Fprint(s.stdout, m.Mapping())
	}
}
