package repl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg" // decode JPEG bundles for the braille drawing
	_ "image/png"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chzyer/readline"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
	"github.com/gnnlab/gnnlab/viz/display"
)

// Prompts of the terminal mode.
const (
	Prompt     = "go> "
	MorePrompt = "...> "
)

// Options configure Run.
type Options struct {
	// Stdin, Stdout and Stderr default to the process's.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Terminal selects the interactive mode (prompt, line editing,
	// colour); Main sets it when stdin and stdout are terminals.
	Terminal bool
	// Color colours errors (terminal mode only).
	Color bool
	// HistoryFile is the terminal mode's history; empty means
	// HistoryPath().
	HistoryFile string
	// Worker is the worker's argv and WorkerEnv its extra environment
	// (tests); empty means this executable with "worker".
	Worker    []string
	WorkerEnv []string
	// ImageDir is where images are saved; empty means os.TempDir().
	ImageDir string
}

// HistoryPath returns the history file: $GNNLAB_REPL_HISTORY, else
// ~/.local/share/gnnlab/repl_history.
func HistoryPath() string {
	if p := os.Getenv("GNNLAB_REPL_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "share", "gnnlab", "repl_history")
}

// Main is the "gnnlab repl" command; it returns the exit status.
func Main(args []string) int {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	noColor := fs.Bool("no-color", false, "do not colour errors")
	hist := fs.String("history", "", "history `file` (default $GNNLAB_REPL_HISTORY or ~/.local/share/gnnlab/repl_history)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	term := readline.IsTerminal(int(os.Stdin.Fd())) && readline.IsTerminal(int(os.Stdout.Fd()))
	opts := Options{
		Terminal:    term,
		Color:       term && !*noColor && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb",
		HistoryFile: *hist,
	}
	if err := Run(context.Background(), opts); err != nil {
		if errors.Is(err, ErrCellFailed) {
			return 1
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// ErrCellFailed is returned by Run in pipe mode when a cell failed or the
// worker died.
var ErrCellFailed = errors.New("repl: a cell failed")

// repl is one running REPL.
type repl struct {
	opts Options
	c    *client.Client
	rl   *readline.Instance // terminal mode only
	out  *screen
	// exit is set by a cell exit or quit: the loop ends after it.
	exit bool
}

// Run runs the REPL until the end of input (Ctrl-D).
func Run(ctx context.Context, opts Options) error {
	if opts.Stdin == nil {
		opts.Stdin = os.Stdin
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.HistoryFile == "" {
		opts.HistoryFile = HistoryPath()
	}
	r := &repl{opts: opts}
	r.out = &screen{stdout: opts.Stdout, stderr: opts.Stderr, term: opts.Terminal}
	if opts.Terminal {
		if opts.HistoryFile != "" {
			_ = os.MkdirAll(filepath.Dir(opts.HistoryFile), 0o755)
		}
		stdin, ok := opts.Stdin.(io.ReadCloser)
		if !ok {
			stdin = io.NopCloser(opts.Stdin)
		}
		rl, err := readline.NewEx(&readline.Config{
			Prompt:            Prompt,
			HistoryFile:       opts.HistoryFile,
			HistorySearchFold: true,
			AutoComplete:      completer{r},
			InterruptPrompt:   "^C",
			Stdin:             stdin,
			Stdout:            opts.Stdout,
			Stderr:            opts.Stderr,
		})
		if err != nil {
			return fmt.Errorf("repl: %w", err)
		}
		defer rl.Close()
		r.rl = rl
		r.out.stdout, r.out.stderr = rl.Stdout(), rl.Stderr()
	}
	c, err := client.Start(ctx, client.Config{
		Command: opts.Worker,
		Env:     opts.WorkerEnv,
		Output:  r.out.stream,
		Orphan:  func(ev workerproto.Event) { r.event(ev) },
	})
	if err != nil {
		return err
	}
	defer c.Close()
	r.c = c
	if opts.Terminal {
		fmt.Fprintln(r.out.stdout, "gnnlab repl: Go cells, %help for magics, Tab completes, Ctrl-C interrupts, exit or Ctrl-D quits.")
		return r.interactive(ctx)
	}
	return r.pipe(ctx)
}

// pipe reads cells from a non-terminal stdin.
func (r *repl) pipe(ctx context.Context) error {
	sc := bufio.NewScanner(r.opts.Stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var cell []string
	failed := false
	run := func() {
		code := strings.Join(cell, "\n")
		cell = nil
		if strings.TrimSpace(code) == "" {
			return
		}
		if !r.execute(ctx, code, false) {
			failed = true
		}
	}
	for !r.exit && sc.Scan() {
		cell = append(cell, sc.Text())
		if r.complete(ctx, strings.Join(cell, "\n")) {
			run()
		}
	}
	run()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("repl: read: %w", err)
	}
	// A worker that died between two cells failed no cell, but the state
	// of the run is lost all the same.
	if failed || r.c.Crashes() > 0 {
		return ErrCellFailed
	}
	return nil
}

// complete reports whether code is ready to run: complete, or invalid
// (running it shows the error). A magic line is always complete.
func (r *repl) complete(ctx context.Context, code string) bool {
	if strings.HasPrefix(strings.TrimSpace(code), "%%") {
		return false // a cell magic takes lines up to a blank one
	}
	if first, _, _ := strings.Cut(strings.TrimLeft(code, "\n"), "\n"); strings.HasPrefix(first, "%") || strings.HasPrefix(first, "!") {
		return true
	}
	status, _, err := r.c.IsComplete(ctx, code)
	return err != nil || status != "incomplete"
}

// interactive is the terminal loop.
func (r *repl) interactive(ctx context.Context) error {
	var cell []string
	for {
		prompt := Prompt
		if len(cell) > 0 {
			prompt = MorePrompt
		}
		r.rl.SetPrompt(prompt)
		line, err := r.rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			cell = nil // Ctrl-C drops what was typed
			continue
		case errors.Is(err, io.EOF):
			if len(cell) > 0 {
				cell = nil
				continue
			}
			return nil
		case err != nil:
			return fmt.Errorf("repl: read: %w", err)
		}
		cell = append(cell, line)
		code := strings.Join(cell, "\n")
		if strings.HasPrefix(strings.TrimSpace(code), "%%") {
			// A cell magic ends at a blank line.
			if strings.TrimSpace(line) != "" || len(cell) == 1 {
				continue
			}
		} else if strings.TrimSpace(code) == "" {
			cell = nil
			continue
		} else if !r.complete(ctx, code) {
			continue
		}
		cell = nil
		r.execute(ctx, code, true)
		if r.exit {
			return nil
		}
	}
}

// execute runs one cell, showing its output; it reports success. At a
// terminal Ctrl-C interrupts it.
func (r *repl) execute(ctx context.Context, code string, interactive bool) bool {
	if interactive {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		stop := make(chan struct{})
		defer func() {
			signal.Stop(sig)
			close(stop)
		}()
		go func() {
			for {
				select {
				case <-sig:
					r.c.Interrupt()
				case <-stop:
					return
				}
			}
		}()
	}
	res, err := r.c.Execute(ctx, client.Cell{Code: code, AllowStdin: interactive}, r.event)
	r.out.endLine()
	if err != nil {
		r.out.errorf(r.opts.Color, "%v\n", err)
		return false
	}
	if res.Error != nil {
		r.showError(res.Error)
		return false
	}
	if res.Page != "" {
		r.out.print(res.Page + "\n")
	}
	r.exit = res.Exit
	return true
}

func (r *repl) showError(ce *workerproto.CellError) {
	var b strings.Builder
	tb := ce.Traceback
	head := ce.Name + ": " + ce.Value
	if len(tb) == 0 || !strings.Contains(strings.Join(tb, "\n"), ce.Value) {
		b.WriteString(head + "\n")
	}
	for _, l := range tb {
		b.WriteString(l + "\n")
	}
	r.out.errorf(r.opts.Color, "%s", b.String())
}

// event shows one event of a cell.
func (r *repl) event(ev workerproto.Event) {
	switch ev.Kind {
	case workerproto.EvResult, workerproto.EvDisplay:
		if ev.Bundle != nil {
			r.out.print(r.bundleText(display.Bundle(*ev.Bundle)) + "\n")
		}
	case workerproto.EvUpdateDisplay:
		if ev.Bundle != nil {
			r.out.update(ev.Bundle.DisplayID, r.bundleText(display.Bundle(*ev.Bundle)))
		}
	case workerproto.EvInputRequest:
		line, eof := "", false
		if r.rl != nil {
			r.rl.SetPrompt(ev.Prompt)
			l, err := r.rl.Readline()
			switch {
			case err == nil:
				line = l
			case errors.Is(err, io.EOF):
				eof = true // Ctrl-D: the end of the cell's standard input
			}
		}
		reply := func() error { return r.c.Reply(line) }
		if eof {
			reply = r.c.ReplyEOF
		}
		if err := reply(); err != nil {
			r.out.errorf(r.opts.Color, "repl: input: %v\n", err)
		}
	}
}

// bundleText is the terminal form of a bundle: its text, and for an image
// the file it was saved to (and a braille drawing at a terminal).
func (r *repl) bundleText(b display.Bundle) string {
	text := b.Text()
	for _, mime := range []string{"image/png", "image/jpeg"} {
		data, ok := b.Data[mime].(string)
		if !ok {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return text + "\n(repl: bad " + mime + " data: " + err.Error() + ")"
		}
		ext := ".png"
		if mime == "image/jpeg" {
			ext = ".jpg"
		}
		path, err := saveImage(r.opts.ImageDir, ext, raw)
		if err != nil {
			return text + "\n(repl: " + err.Error() + ")"
		}
		out := text + "\n[" + mime + " saved to " + path + "]"
		if r.opts.Terminal {
			if img, _, err := image.Decode(bytes.NewReader(raw)); err == nil {
				out += "\n" + strings.TrimRight(Braille(img, 60, 16), "\n")
			}
		}
		return out
	}
	return text
}

func saveImage(dir, ext string, raw []byte) (string, error) {
	f, err := os.CreateTemp(dir, "gnnlab-*"+ext)
	if err != nil {
		return "", fmt.Errorf("save image: %w", err)
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		return "", fmt.Errorf("save image: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("save image: %w", err)
	}
	return f.Name(), nil
}

// completer offers the session's completions to readline.
type completer struct{ r *repl }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 5e9)
	defer cancel()
	code := string(line[:pos])
	matches, start, end, err := c.r.c.Complete(ctx, code, utf8.RuneCountInString(code))
	if err != nil || len(matches) == 0 || start > pos {
		return nil, 0
	}
	typed := string(line[start:min(end, pos)])
	var out [][]rune
	for _, m := range matches {
		if strings.HasPrefix(m, typed) {
			out = append(out, []rune(m[len(typed):]))
		}
	}
	return out, utf8.RuneCountInString(typed)
}

// screen serialises what the REPL and the worker write, and redraws a
// display updated in place at a terminal.
type screen struct {
	mu             sync.Mutex
	stdout, stderr io.Writer
	term           bool
	openID         string // the display drawn on the open line
	open           bool   // the cursor is after an updated display
}

func (s *screen) endLineLocked() {
	if s.open {
		fmt.Fprintln(s.stdout)
		s.open, s.openID = false, ""
	}
}

func (s *screen) endLine() {
	s.mu.Lock()
	s.endLineLocked()
	s.mu.Unlock()
}

// stream writes worker output.
func (s *screen) stream(name, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLineLocked()
	if name == "stderr" {
		io.WriteString(s.stderr, text)
		return
	}
	io.WriteString(s.stdout, text)
}

func (s *screen) print(text string) { s.stream("stdout", text) }

// update redraws display id: at a terminal on its line when it is the
// last thing shown and one line long, else as a new line.
func (s *screen) update(id, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.term || strings.Contains(text, "\n") {
		s.endLineLocked()
		fmt.Fprintln(s.stdout, text)
		return
	}
	if s.open && s.openID != id {
		s.endLineLocked()
	}
	fmt.Fprint(s.stdout, "\r\x1b[K"+text)
	s.open, s.openID = true, id
}

func (s *screen) errorf(color bool, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLineLocked()
	text := fmt.Sprintf(format, args...)
	if color {
		text = "\x1b[31m" + strings.TrimRight(text, "\n") + "\x1b[0m\n"
	}
	io.WriteString(s.stderr, text)
}
