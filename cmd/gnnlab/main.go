// Command gnnlab is the gnnlab binary: a Jupyter kernel for Go with
// packages for deep learning on graphs, its worker process, and the
// kernelspec installer.
//
//	gnnlab kernel --connection-file FILE   run as a Jupyter kernel
//	gnnlab kernel --connection-file FILE --handshake ADDR
//	                                       JEP 66: report own ports to ADDR
//	gnnlab kernel --response-address HOST:PORT --kernel-id ID --public-key KEY [--port-range LOW..HIGH]
//	                                       started by Jupyter Enterprise Gateway
//	gnnlab repl                            the terminal REPL
//	gnnlab run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p name=value ...] [--html OUT.html]
//	gnnlab install [--user | --sys-prefix | --prefix DIR] [--gateway]
//	gnnlab version
//	gnnlab worker                          internal: the kernel's session process
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/gnnlab/gnnlab/install"
	"github.com/gnnlab/gnnlab/interp"
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
                [--handshake ADDR]     JEP 66: bind free ports, report them to ADDR
  gnnlab kernel --response-address HOST:PORT --kernel-id ID --public-key KEY [--port-range LOW..HIGH]
                                         run as a kernel of Jupyter Enterprise Gateway
  gnnlab repl                            the terminal REPL (Go cells, magics)
  gnnlab run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p name=value ...] [--html OUT.html]
                                         execute a notebook headless
  gnnlab install [--user | --sys-prefix | --prefix DIR] [--gateway]
                                         install the Jupyter kernelspec (default --user);
                                         --gateway: the one for Enterprise Gateway
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
	connFile := fs.String("connection-file", "", "Jupyter connection `file`")
	maxMessage := fs.Int64("max-message-size", kernel.DefaultMaxMessageSize, "largest message in bytes a client may send")
	handshake := fs.String("handshake", "", "JEP 66 handshake: bind free ports and report them to the launcher's registration socket at `ADDR` (tcp://host:port); a connection file with registration_port does the same, and a registration file (protocol 5.6) its own handshake")
	var gw kernel.GatewayResponse
	fs.StringVar(&gw.Address, "response-address", "", "Enterprise Gateway: report the connection information, encrypted, to `HOST:PORT` (in place of a connection file)")
	fs.StringVar(&gw.KernelID, "kernel-id", "", "Enterprise Gateway: the kernel's `ID`")
	fs.StringVar(&gw.PublicKey, "public-key", "", "Enterprise Gateway: its RSA public `KEY` (base64 DER)")
	portRange := fs.String("port-range", "", "Enterprise Gateway: bind ports in `LOW..HIGH` (0..0: any)")
	ip := fs.String("ip", "0.0.0.0", "Enterprise Gateway: the `address` to bind")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var conn kernel.ConnectionInfo
	var err error
	low, high := 0, 0
	switch {
	case gw.Address != "":
		if *connFile != "" || *handshake != "" {
			fmt.Fprintln(os.Stderr, "gnnlab kernel: --response-address takes no --connection-file or --handshake")
			return 2
		}
		if gw.KernelID == "" || gw.PublicKey == "" {
			fmt.Fprintln(os.Stderr, "gnnlab kernel: --response-address needs --kernel-id and --public-key")
			return 2
		}
		if low, high, err = kernel.ParsePortRange(*portRange); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		conn = kernel.ConnectionInfo{Transport: "tcp", IP: *ip, Key: kernel.NewKey(), SignatureScheme: "hmac-sha256", KernelName: install.GatewayName}
	case *connFile == "":
		fmt.Fprintln(os.Stderr, "gnnlab kernel: --connection-file is required")
		return 2
	default:
		if conn, err = kernel.ReadConnectionFile(*connFile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	registration := *handshake
	if registration == "" {
		registration = conn.RegistrationEndpoint()
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ctx, unwatch := kernel.WithParent(ctx, os.Getenv("JPY_PARENT_PID"))
	defer unwatch()
	opts := kernel.Options{Conn: conn, Version: getVersion(), Interrupts: interrupts, MaxMessageSize: *maxMessage}
	k, err := newKernel(opts, low, high)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	switch {
	case gw.Address != "":
		err = kernel.ReportToGateway(ctx, gw, k.Conn())
	case registration != "":
		// A registration file (protocol 5.6) stays as the launcher wrote
		// it; a JEP 66 connection file becomes the running kernel's.
		if err = k.Register(ctx, registration, 0); err == nil && !conn.IsRegistrationFile() {
			err = kernel.WriteConnectionFile(*connFile, k.Conn())
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		k.Close()
		return 1
	}
	if err := k.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// newKernel binds the kernel's sockets; with a port range (high > 0) it
// binds each to a random port in [low, high], trying again with others
// when one is taken.
func newKernel(opts kernel.Options, low, high int) (*kernel.Kernel, error) {
	if high == 0 {
		return kernel.New(opts)
	}
	var err error
	for range 20 {
		c := &opts.Conn
		for _, p := range []*int{&c.ShellPort, &c.ControlPort, &c.StdinPort, &c.IOPubPort, &c.HBPort} {
			*p = low + rand.IntN(high-low+1)
		}
		var k *kernel.Kernel
		if k, err = kernel.New(opts); err == nil {
			return k, nil
		}
	}
	return nil, fmt.Errorf("gnnlab kernel: no free ports in %d..%d: %w", low, high, err)
}

func runInstall(args []string) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	var w install.Where
	fs.BoolVar(&w.User, "user", false, "install for the current user (default)")
	fs.BoolVar(&w.SysPrefix, "sys-prefix", false, "install into the active virtual environment ($VIRTUAL_ENV)")
	fs.StringVar(&w.Prefix, "prefix", "", "install into `DIR`/share/jupyter/kernels")
	gateway := fs.Bool("gateway", false, "install the kernelspec for Jupyter Enterprise Gateway ("+install.GatewayName+") instead")
	warm := fs.Bool("warm", true, "build the packages that compiled cells link in plugin mode now, so that the first compiled cell does not wait for them")
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
	write, name := install.Write, install.Name
	if *gateway {
		write, name = install.WriteGateway, install.GatewayName
	}
	dir, err := write(kd, exe)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("installed kernelspec %s in %s\n", name, dir)
	if *warm {
		// A failure is not the install's: cells then run interpreted
		// (or compile their dependencies on first use).
		if d, err := interp.WarmCompiled(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "gnnlab install: compiled cells: %v\n", err)
		} else {
			fmt.Printf("compiled cells: plugin build cache warm (%.1f s)\n", d.Seconds())
		}
	}
	return 0
}
