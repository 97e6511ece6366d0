package kernel_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/gnnlab/gnnlab/kernel"
	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// registrar is a launcher's registration socket (JEP 66): it verifies the
// first request with key, passes it on requests, and answers it as answer
// says (no answer for an empty msgType), signed with signKey.
func registrar(t *testing.T, key string, answer func(req *wire.Message) (msgType string, content any, signKey string)) (endpoint string, requests <-chan *wire.Message) {
	t.Helper()
	sock := zmq4.NewRep(t.Context())
	t.Cleanup(func() { sock.Close() })
	if err := sock.Listen("tcp://127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	port := sock.Addr().(*net.TCPAddr).Port
	signer, _ := wire.NewSigner("hmac-sha256", []byte(key))
	got := make(chan *wire.Message, 1)
	go func() {
		m, err := sock.Recv()
		if err != nil {
			return
		}
		req, err := wire.Decode(m.Frames, signer)
		if err != nil {
			t.Errorf("registrar: %v", err)
			return
		}
		got <- req
		msgType, content, signKey := answer(req)
		if msgType == "" {
			return // no answer
		}
		body, _ := json.Marshal(content)
		s, _ := wire.NewSigner("hmac-sha256", []byte(signKey))
		frames, _ := wire.Encode(&wire.Message{Header: wire.NewHeader(msgType, "launcher"), ParentHeader: req.Header, Content: body}, s)
		_ = sock.SendMulti(zmq4.NewMsgFrom(frames...))
	}()
	return fmt.Sprintf("tcp://127.0.0.1:%d", port), got
}

func newUnstarted(t *testing.T, key string) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(kernel.Options{
		Conn:          kernel.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", Key: key, SignatureScheme: "hmac-sha256"},
		WorkerCommand: workerCmd, HistoryPath: filepath.Join(t.TempDir(), "history.jsonl"),
		Log: log.New(io.Discard, "", 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	return k
}

func TestRegisterReportsBoundPorts(t *testing.T) {
	key := wire.NewID()
	ep, reqs := registrar(t, key, func(*wire.Message) (string, any, string) {
		return "handshake_reply", map[string]string{"status": "ok"}, key
	})
	k := newUnstarted(t, key)
	if err := k.Register(t.Context(), ep, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	var req *wire.Message
	select {
	case req = <-reqs:
	case <-time.After(30 * time.Second):
		t.Fatal("the registrar received no handshake_request within 30 s of Register returning")
	}
	if req.Header.MsgType != "handshake_request" {
		t.Fatalf("msg_type = %q", req.Header.MsgType)
	}
	var got kernel.ConnectionInfo
	if err := req.DecodeContent(&got); err != nil {
		t.Fatal(err)
	}
	c := k.Conn()
	want := kernel.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", SignatureScheme: "hmac-sha256",
		ShellPort: c.ShellPort, ControlPort: c.ControlPort, StdinPort: c.StdinPort, IOPubPort: c.IOPubPort, HBPort: c.HBPort}
	if got != want {
		t.Errorf("handshake_request content = %+v, want %+v (the bound ports, no key)", got, want)
	}
	if c.ShellPort == 0 || c.HBPort == 0 {
		t.Errorf("ports not bound: %+v", c)
	}
}

func TestRegisterRefused(t *testing.T) {
	key := wire.NewID()
	ep, _ := registrar(t, key, func(*wire.Message) (string, any, string) {
		return "handshake_reply", map[string]string{"status": "error", "error": "full"}, key
	})
	err := newUnstarted(t, key).Register(t.Context(), ep, 10*time.Second)
	if !errors.Is(err, kernel.ErrRegistrationRefused) {
		t.Fatalf("Register = %v, want ErrRegistrationRefused", err)
	}
}

func TestRegisterRejectsUnsignedReply(t *testing.T) {
	key := wire.NewID()
	ep, _ := registrar(t, key, func(*wire.Message) (string, any, string) {
		return "handshake_reply", map[string]string{"status": "ok"}, "another key"
	})
	err := newUnstarted(t, key).Register(t.Context(), ep, 10*time.Second)
	if !errors.Is(err, wire.ErrBadSignature) {
		t.Fatalf("Register = %v, want ErrBadSignature", err)
	}
}

func TestRegisterTimesOut(t *testing.T) {
	key := wire.NewID()
	ep, _ := registrar(t, key, func(*wire.Message) (string, any, string) { return "", nil, "" })
	if err := newUnstarted(t, key).Register(t.Context(), ep, 300*time.Millisecond); err == nil {
		t.Fatal("Register without an acknowledgement: no error")
	}
}

func TestWriteConnectionFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kernel.json")
	ci := kernel.ConnectionInfo{Transport: "tcp", IP: "127.0.0.1", ShellPort: 1, ControlPort: 2, StdinPort: 3,
		IOPubPort: 4, HBPort: 5, Key: "k", SignatureScheme: "hmac-sha256", RegistrationPort: 6}
	if err := kernel.WriteConnectionFile(path, ci); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 (the file holds the key)", fi.Mode().Perm())
	}
	got, err := kernel.ReadConnectionFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ci.RegistrationPort = 0
	if got != ci {
		t.Errorf("read back %+v, want %+v", got, ci)
	}
}
