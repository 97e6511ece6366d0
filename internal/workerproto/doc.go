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
// JSON. Before it sends the final event of an execute request, the worker
// writes the request's Sync token to its standard output and standard error;
// the kernel holds the reply until it has seen both tokens, so every byte a
// cell printed is published before its result and its idle status.
package workerproto
