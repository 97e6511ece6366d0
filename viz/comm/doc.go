// Package comm carries Jupyter comm messages between compiled packages
// running in the Go session and the frontend, the way viz/display carries
// display bundles. Package widgets is built on it.
//
// # Hosts
//
// The gnnlab worker installs a Transport with SetTransport: Send turns a
// Msg into an event that the kernel publishes on iopub as comm_open,
// comm_msg or comm_close. The kernel relays the frontend's comm messages
// to the worker, which passes each to Deliver on one goroutine of its own,
// so that handlers run between cells and while a cell runs (a training
// loop can read a slider that the user moves).
//
// # Targets
//
// RegisterTarget answers comms the frontend opens (ipywidgets opens
// jupyter.widget.control to ask for every widget's state); Open opens one
// from the session (every widget is a comm of target jupyter.widget).
package comm
