package kernel_test

import (
	"io"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
	"github.com/gnnlab/gnnlab/kernel/kerneltest"
)

// TestCurveKernel runs a session over CurveZMQ on every socket (zconn's
// client against the kernel); a plaintext peer that sends a signed
// kernel_info_request gets no answer, garbage after a CURVE greeting is
// refused, and the kernel serves on.
func TestCurveKernel(t *testing.T) {
	for _, transport := range []string{"tcp", "ipc"} {
		t.Run(transport, func(t *testing.T) {
			c := kerneltest.Start(t, kerneltest.Options{Transport: transport, WorkerCommand: workerCmd, Logf: t.Logf, Curve: true})
			if c.Welcome() == nil {
				t.Error("no iopub_welcome over CURVE")
			}
			reply, out := c.Execute(`fmt.Println("over curve", 6*7)`, nil)
			if reply.Content["status"] != "ok" || kerneltest.StreamText(out, "stdout") != "over curve 42\n" {
				t.Fatalf("cell over CURVE: %v %q", reply.Content, kerneltest.StreamText(out, "stdout"))
			}
			if p, err := c.Ping("beat"); err != nil || p != "beat" {
				t.Errorf("heartbeat over CURVE = %q, %v", p, err)
			}
			if transport != "tcp" {
				return
			}
			// A plaintext client: the kernel greets with CURVE and hangs
			// up on the NULL greeting, before any message.
			plain := append(zmtpGreeting(), zmtpReady("DEALER")...)
			plain = append(plain, zmtpMessage(c.Encode(&wire.Message{Header: c.Header("kernel_info_request"), Content: []byte("{}")}))...)
			conn := dialRaw(t, c.Conn.ShellPort, plain)
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			got, err := io.ReadAll(conn)
			if err != nil {
				t.Fatalf("plaintext peer: %v after %d bytes (want the kernel to hang up)", err, len(got))
			}
			if len(got) != 64 || string(got[12:17]) != "CURVE" {
				t.Errorf("plaintext peer read %d bytes %q, want only a CURVE greeting", len(got), got)
			}
			// A CURVE greeting followed by a HELLO that does not open
			// (a wrong server key): refused too.
			g := zmtpGreeting()
			copy(g[12:], "CURVE")
			hello := append([]byte("\x05HELLO\x01\x00"), make([]byte, 72+32+8+80)...)
			hello[6+2+72+32+7] = 1 // short nonce 1: the box is what fails
			bad := append(g, append([]byte{0x04, byte(len(hello))}, hello...)...)
			conn = dialRaw(t, c.Conn.ShellPort, bad)
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			if got, err := io.ReadAll(conn); err != nil || len(got) != 64 {
				t.Errorf("bad HELLO: read %d bytes, %v; want the greeting and a hang-up", len(got), err)
			}
			reply, out = c.Execute(`fmt.Println("still here")`, nil)
			if reply.Content["status"] != "ok" || kerneltest.StreamText(out, "stdout") != "still here\n" {
				t.Errorf("after the refused peers: %v", reply.Content)
			}
		})
	}
}
