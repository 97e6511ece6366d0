package zconn

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// Defaults of Limits.
const (
	DefaultMaxMessage     = 1 << 30 // 1 GiB
	DefaultSendQueue      = 1000    // ZeroMQ's default SNDHWM
	DefaultSendQueueBytes = 256 << 20
	DefaultHandshake      = 10 * time.Second
)

// maxCommand bounds a ZMTP command's body (READY, PING, ...); the peers of
// a kernel send a few hundred bytes.
const maxCommand = 64 << 10

// frameOverhead is what a received frame costs beyond its body (zmq4 keeps
// a slice header per frame), so that a million empty frames count too.
const frameOverhead = 32

// Errors a Conn's Read returns; zmq4 then drops the connection.
var (
	ErrTooLarge = errors.New("zconn: message larger than the limit")
	ErrProtocol = errors.New("zconn: malformed ZMTP stream")
)

// Limits bound what one connection may cost the process. The zero value
// of each field means its default.
type Limits struct {
	// MaxMessage bounds the bytes of one received message (its frames'
	// bodies plus a few bytes per frame), checked from the frame headers
	// before zmq4 allocates anything.
	MaxMessage int64
	// SendQueue and SendQueueBytes bound the messages waiting for a slow
	// peer; beyond them new messages to that peer are dropped, as ZeroMQ
	// does at its high-water mark, and no other peer waits.
	SendQueue      int
	SendQueueBytes int64
	// Handshake bounds the time an accepted connection may take to send its
	// greeting and first command.
	Handshake time.Duration
	// Welcome, when set, is asked for a message to send to a peer that
	// subscribes (an XPUB socket's subscription message, 0x01 and the
	// topic); it goes to that peer alone, ahead of anything the socket
	// publishes after the subscription.
	Welcome Welcomer
	// Curve, when set, makes every connection speak CurveZMQ with these
	// long-term keys (curve.go): a listener's connections as the server,
	// a dialer's as a client whose own pair they are too (jupyter_client's
	// way). A peer without CURVE or without the key is refused.
	Curve *CurveKeys
}

// Welcomer makes the message that greets a new subscriber: its frames, or
// nil for none. Its dynamic type must be comparable (a pointer): Limits
// name a transport.
type Welcomer interface {
	Welcome(topic []byte) [][]byte
}

// maxSubscription bounds the subscription messages the reader keeps to
// pass to Welcome; a longer one subscribes without a welcome.
const maxSubscription = 4096

func (l Limits) withDefaults() Limits {
	if l.MaxMessage <= 0 {
		l.MaxMessage = DefaultMaxMessage
	}
	if l.SendQueue <= 0 {
		l.SendQueue = DefaultSendQueue
	}
	if l.SendQueueBytes <= 0 {
		l.SendQueueBytes = DefaultSendQueueBytes
	}
	if l.Handshake <= 0 {
		l.Handshake = DefaultHandshake
	}
	return l
}

// registry names one pair of zmq4 transports per distinct Limits: zmq4
// looks transports up by the endpoint's scheme.
var registry = struct {
	sync.Mutex
	prefix map[Limits]string
}{prefix: map[Limits]string{}}

func prefixFor(l Limits) (string, error) {
	l = l.withDefaults()
	registry.Lock()
	defer registry.Unlock()
	if p, ok := registry.prefix[l]; ok {
		return p, nil
	}
	p := "gnnlab"
	if l != (Limits{}).withDefaults() {
		p = fmt.Sprintf("gnnlab%d", len(registry.prefix)+1)
	}
	for suffix, network := range map[string]string{"tcp": "tcp", "ipc": "unix"} {
		if err := zmq4.RegisterTransport(p+"-"+suffix, netTransport{Transport: transport.New(network), network: network, lim: l}); err != nil {
			return "", err
		}
	}
	registry.prefix[l] = p
	return p, nil
}

// Register adds the buffered transports with the default Limits to zmq4.
// It is safe to call more than once.
func Register() error {
	_, err := prefixFor(Limits{})
	return err
}

// Endpoint rewrites a tcp:// or ipc:// endpoint to the buffered transport of
// the same kind with the default Limits; other endpoints are returned
// unchanged. Call Register first.
func Endpoint(ep string) string {
	ep, _ = WithLimits(ep, Limits{})
	return ep
}

// WithLimits rewrites a tcp:// or ipc:// endpoint to a buffered transport
// of the same kind whose connections keep to l, registering it if needed.
func WithLimits(ep string, l Limits) (string, error) {
	for _, p := range []string{"tcp", "ipc"} {
		if rest, ok := strings.CutPrefix(ep, p+"://"); ok {
			prefix, err := prefixFor(l)
			if err != nil {
				return "", err
			}
			return prefix + "-" + p + "://" + rest, nil
		}
	}
	return ep, nil
}
