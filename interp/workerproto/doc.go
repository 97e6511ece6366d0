// Package workerproto is the framed protocol between the kernel process and
// the worker process that runs the Go session.
//
// The kernel starts the worker as "gnnlab worker" with two extra pipes: the
// worker reads Requests from file descriptor 3 and writes Events to file
// descriptor 4. Its standard output and error stay plain pipes that the
// kernel turns into stream messages as bytes arrive, so output from
// goroutines and from C code is never lost.
//
// Each frame is a 4-byte big-endian length followed by that many bytes of
// JSON.
//
// # Ordering output and events
//
// Output travels on the stdout and stderr pipes, events on fd 4, so the
// kernel could see a display or a reply before text printed earlier.
// Before an event that must follow the output (a display, the result, the
// error, the end of a cell), the worker writes a sync mark (SyncMark(n),
// n counting up from 1) to its standard output and standard error and sets
// the event's Sync to n; the kernel strips the marks from the streams and
// holds the event until it has seen mark n on both, so every byte a cell
// printed is published before its result and its idle status.
//
// # Comms
//
// Jupyter comms (widgets) travel both ways as CommMsg: OpComm carries the
// frontend's comm_open, comm_msg and comm_close to the session, which the
// worker reads and delivers while a cell runs too; EvComm carries the
// session's to the kernel, which publishes them. The kernel starts the
// worker with CommsEnv set, so that the session opens comms only when a
// frontend relays them. What a comm message's handlers print on the
// goroutine that delivers it travels as EvStream events of that message,
// not on the pipes, so that the kernel publishes it under the message
// while what a running cell prints stays the cell's.
package workerproto
