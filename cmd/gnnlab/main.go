// Command gnnlab is the gnnlab binary: a Jupyter kernel for Go with
// packages for deep learning on graphs, its worker process, and the
// kernelspec installer.
//
//	gnnlab kernel --connection-file FILE   run as a Jupyter kernel
//	gnnlab repl                            the terminal REPL
//	gnnlab run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p name=value ...] [--html OUT.html]
//	gnnlab install [--user | --sys-prefix | --prefix DIR]
//	gnnlab version
//	gnnlab worker                          internal: the kernel's session process
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/gnnlab/gnnlab/install"
	"github.com/gnnlab/gnnlab/interp/repl"
	"github.com/gnnlab/gnnlab/interp/runner"
	"github.com/gnnlab/gnnlab/interp/worker"
	"github.com/gnnlab/gnnlab/kernel"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); else
// the module version from the build info is used.
var version = ""

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	switch cmd {
	case "kernel":
		os.Exit(runKernel(args))
	case "worker":
		os.Exit(worker.Main())
	case "install":
		os.Exit(runInstall(args))
	case "version", "--version", "-version":
		fmt.Printf("gnnlab %s (%s %s/%s)\n", getVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "repl":
		os.Exit(repl.Main(args))
	case "run":
		os.Exit(runner.Main(args))
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "gnnlab: unknown command %q\n", cmd)
		usage()
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  gnnlab kernel --connection-file FILE   run as a Jupyter kernel
  gnnlab repl                            the terminal REPL (Go cells, magics)
  gnnlab run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p name=value ...] [--html OUT.html]
                                         execute a notebook headless
  gnnlab install [--user | --sys-prefix | --prefix DIR]
                                         install the Jupyter kernelspec (default --user)
  gnnlab version                         print the version
`)
}

func getVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func runKernel(args []string) int {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	connFile := fs.String("connection-file", "", "Jupyter connection file")
	maxMessage := fs.Int64("max-message-size", kernel.DefaultMaxMessageSize, "largest message in bytes a client may send")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *connFile == "" {
		fmt.Fprintln(os.Stderr, "gnnlab kernel: --connection-file is required")
		return 2
	}
	conn, err := kernel.ReadConnectionFile(*connFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ctx, unwatch := kernel.WithParent(ctx, os.Getenv("JPY_PARENT_PID"))
	defer unwatch()
	k, err := kernel.New(kernel.Options{Conn: conn, Version: getVersion(), Interrupts: interrupts, MaxMessageSize: *maxMessage})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := k.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runInstall(args []string) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	var w install.Where
	fs.BoolVar(&w.User, "user", false, "install for the current user (default)")
	fs.BoolVar(&w.SysPrefix, "sys-prefix", false, "install into the active virtual environment ($VIRTUAL_ENV)")
	fs.StringVar(&w.Prefix, "prefix", "", "install into `DIR`/share/jupyter/kernels")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	n := 0
	for _, set := range []bool{w.User, w.SysPrefix, w.Prefix != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintln(os.Stderr, "gnnlab install: choose one of --user, --sys-prefix, --prefix")
		return 2
	}
	kd, err := install.KernelsDir(w)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := install.Write(kd, exe)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("installed kernelspec %s in %s\n", install.Name, dir)
	return 0
}
