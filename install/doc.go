// Package install writes the gnnlab kernelspec where Jupyter looks for
// kernels.
//
// # Layout
//
// A kernelspec is a directory named after the kernel, "gnnlab", holding
// kernel.json and the logos logo-32x32.png and logo-64x64.png. Jupyter
// finds it under share/jupyter/kernels of a prefix (Prefix), of the
// active virtual environment (SysPrefix, from $VIRTUAL_ENV), or in the
// user's data directory (User: ~/.local/share/jupyter/kernels on Linux,
// ~/Library/Jupyter/kernels on macOS, honouring $JUPYTER_DATA_DIR).
// kernel.json says the protocol version the kernel speaks
// (kernel_protocol_version, KernelProtocolVersion) and, in its metadata,
// the debugger and "supported_encryption": ["curve"], on which
// jupyter_client 8.10's transport_encryption "auto" provisions CurveZMQ
// keys.
//
// WriteGateway writes a second kernelspec, "gnnlab_distributed", for
// Jupyter Enterprise Gateway: its DistributedProcessProxy starts gnnlab
// kernel with the gateway's response address in place of a connection
// file (NewGatewaySpec).
//
// The logos are drawn by kernelspec/genlogo.go (go generate) and embedded.
//
// BUG(gnnlab): SysPrefix knows only virtual environments ($VIRTUAL_ENV),
// not a conda environment or the system Python's prefix.
package install
