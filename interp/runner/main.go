package runner

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

type paramList []Param

func (p *paramList) String() string { return fmt.Sprint(*p) }

func (p *paramList) Set(s string) error {
	q, err := ParseParam(s)
	if err != nil {
		return err
	}
	*p = append(*p, q)
	return nil
}

// Main is the "gnnlab run" command:
//
//	gnnlab run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p name=value ...] [--html OUT.html]
//
// It returns 0 when every cell ran, 1 when one failed (the notebook is
// still written, with the error) or could not run, 2 for bad usage.
func Main(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("o", "", "write the executed notebook to `OUT.ipynb`")
	inplace := fs.Bool("inplace", false, "write the executed notebook over NOTEBOOK")
	htmlOut := fs.String("html", "", "also write a static HTML rendering to `OUT.html`")
	var params paramList
	fs.Var(&params, "p", "set a parameter: `name=value` (repeatable)")
	quiet := fs.Bool("q", false, "no progress on stderr")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gnnlab run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p name=value ...] [--html OUT.html] [-q]")
		fs.PrintDefaults()
	}
	// Flags may come before or after the notebook.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	in := pos[0]
	// Like `jupyter execute`, outputs are saved only when asked for: the
	// notebooks in a repository are kept with their outputs cleared.
	switch {
	case *inplace && *out != "":
		fmt.Fprintln(os.Stderr, "gnnlab run: -o and --inplace exclude each other")
		return 2
	case *inplace:
		*out = in
	}
	nb, err := ReadFile(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gnnlab run:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := Options{Params: params, Progress: os.Stderr}
	if *quiet {
		opts.Progress = nil
	}
	runErr := Run(ctx, nb, opts)
	if *out != "" {
		if err := WriteFile(*out, nb); err != nil {
			fmt.Fprintln(os.Stderr, "gnnlab run:", err)
			return 1
		}
	}
	if *htmlOut != "" {
		if err := writeHTMLFile(*htmlOut, nb, strings.TrimSuffix(filepath.Base(in), ".ipynb")); err != nil {
			fmt.Fprintln(os.Stderr, "gnnlab run:", err)
			return 1
		}
	}
	var ce *CellError
	switch {
	case errors.As(runErr, &ce):
		fmt.Fprintf(os.Stderr, "gnnlab run: %s: cell %d failed (%s): %s: %s\n", in, ce.Index, ce.FirstLine, ce.Name, ce.Value)
		return 1
	case runErr != nil:
		fmt.Fprintln(os.Stderr, "gnnlab run:", runErr)
		return 1
	}
	if opts.Progress != nil {
		if *out != "" {
			fmt.Fprintf(os.Stderr, "gnnlab run: %s: all cells ran; wrote %s\n", in, *out)
		} else {
			fmt.Fprintf(os.Stderr, "gnnlab run: %s: all cells ran (outputs not saved: use -o OUT.ipynb or --inplace)\n", in)
		}
	}
	return 0
}

func writeHTMLFile(path string, nb *Notebook, title string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("notebook: %w", err)
	}
	if err := WriteHTML(f, nb, title); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
