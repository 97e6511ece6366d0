package comm

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// recorder is a Transport that keeps what it is sent.
type recorder struct {
	mu   sync.Mutex
	sent []Msg
}

func (r *recorder) Send(m Msg) error {
	r.mu.Lock()
	r.sent = append(r.sent, m)
	r.mu.Unlock()
	return nil
}

func (r *recorder) Parent() string { return "parent-1" }

func useRecorder(t *testing.T) *recorder {
	r := &recorder{}
	SetTransport(r)
	t.Cleanup(func() { SetTransport(nil); Reset() })
	return r
}

func TestDeliver(t *testing.T) {
	r := useRecorder(t)
	var got []string
	RegisterTarget("test.echo", func(c *Comm, open Msg) error {
		got = append(got, "open "+string(open.Data))
		c.OnMsg(func(m Msg) {
			got = append(got, "msg "+string(m.Data))
			if err := c.Send(map[string]int{"n": 2}, nil, m.MsgID); err != nil {
				t.Error(err)
			}
		})
		c.OnClose(func(Msg) { got = append(got, "close") })
		return nil
	})
	for _, m := range []Msg{
		{Type: TypeOpen, ID: "c1", Target: "test.echo", Data: json.RawMessage(`{"a":1}`)},
		{Type: TypeMsg, ID: "c1", Data: json.RawMessage(`{"n":1}`), MsgID: "m1"},
		{Type: TypeClose, ID: "c1"},
	} {
		if err := Deliver(m); err != nil {
			t.Fatalf("Deliver(%+v) = %v", m, err)
		}
	}
	if want := []string{`open {"a":1}`, `msg {"n":1}`, "close"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("handlers saw %q, want %q", got, want)
	}
	if len(r.sent) != 1 || r.sent[0].ID != "c1" || r.sent[0].MsgID != "m1" || string(r.sent[0].Data) != `{"n":2}` {
		t.Errorf("sent %+v, want one reply on c1 to m1", r.sent)
	}
	// Closed: a further message is an error.
	if err := Deliver(Msg{Type: TypeMsg, ID: "c1"}); err == nil {
		t.Error("Deliver of a msg on a closed comm = nil, want an error")
	}
}

func TestDeliverRefused(t *testing.T) {
	r := useRecorder(t)
	RegisterTarget("test.no", func(*Comm, Msg) error { return errTest })
	if err := Deliver(Msg{Type: TypeOpen, ID: "x0", Target: "test.no"}); !errors.Is(err, errTest) {
		t.Errorf("Deliver of a refused open = %v, want it to wrap the target's error", err)
	}
	for _, tc := range []struct {
		m    Msg
		want string
	}{
		{Msg{Type: TypeOpen, ID: "x1", Target: "nobody"}, `no target "nobody"`},
		{Msg{Type: TypeOpen, ID: "x2", Target: "test.no"}, "refused"},
		{Msg{Type: TypeMsg, ID: "never"}, "not open"},
		{Msg{Type: "bogus", ID: "x3"}, `unknown message type "bogus"`},
	} {
		err := Deliver(tc.m)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Deliver(%+v) = %v, want an error containing %q", tc.m, err, tc.want)
		}
	}
	// Both refused opens were closed again on the frontend's side.
	var closed []string
	for _, m := range r.sent {
		if m.Type == TypeClose {
			closed = append(closed, m.ID)
		}
	}
	if strings.Join(closed, ",") != "x0,x1,x2" {
		t.Errorf("closed %v after refusals, want x0,x1,x2", closed)
	}
}

func TestNoFrontend(t *testing.T) {
	SetTransport(nil)
	if _, err := Open("t", nil, nil, nil); !errors.Is(err, ErrNoFrontend) {
		t.Errorf("Open without a transport = %v, want ErrNoFrontend", err)
	}
}

var errTest = errors.New("test refusal")
