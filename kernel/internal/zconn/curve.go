package zconn

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/nacl/secretbox"
)

// CurveZMQ (RFC 26) over ZMTP 3.0 (the CURVE mechanism of RFC 25), as
// libzmq speaks it, below zmq4: zmq4 v0.17's Security interface hands a
// mechanism each frame's body after writing the frame's header with the
// plaintext length, so a mechanism that changes the length (every
// encrypting one) cannot be written against it. A curveConn instead sits
// between the network and zmq4 and shows zmq4 a NULL-mechanism stream:
// it greets the peer with CURVE, runs the handshake (HELLO, WELCOME,
// INITIATE, READY) with zmq4's READY metadata, hands zmq4 the peer's
// metadata as a NULL READY, and turns every frame into a MESSAGE command
// and back.

// CurveKeys is a long-term CurveZMQ key pair: a kernel's (the server's)
// curve_publickey and curve_secretkey of a Jupyter connection file. A
// client dialing with them uses them as its own pair and as the server's
// public key, as jupyter_client 8.10 does.
type CurveKeys struct {
	Public, Secret [32]byte
}

// ParseCurveKeys decodes a Z85 public and secret key (40 characters each)
// and checks that they are a pair.
func ParseCurveKeys(public, secret string) (*CurveKeys, error) {
	var k CurveKeys
	if err := z85Key(&k.Public, public); err != nil {
		return nil, fmt.Errorf("zconn: curve public key: %w", err)
	}
	if err := z85Key(&k.Secret, secret); err != nil {
		return nil, fmt.Errorf("zconn: curve secret key: %w", err)
	}
	pub, err := curve25519.X25519(k.Secret[:], curve25519.Basepoint)
	if err != nil || !bytes.Equal(pub, k.Public[:]) {
		return nil, errors.New("zconn: curve public key is not the secret key's")
	}
	return &k, nil
}

// NewCurveKeys returns a fresh key pair and its Z85 text.
func NewCurveKeys() (k *CurveKeys, public, secret string, err error) {
	pub, sec, err := box.GenerateKey(rand.Reader)
	if err != nil {
		return nil, "", "", err
	}
	return &CurveKeys{Public: *pub, Secret: *sec}, Z85Encode(pub[:]), Z85Encode(sec[:]), nil
}

// ErrCurve is the error of a read that fails the CurveZMQ handshake or a
// message's authentication; zmq4 then drops the connection.
var ErrCurve = errors.New("zconn: curve")

const (
	curveHelloLen    = 200 // HELLO command body
	curveWelcomeLen  = 168
	curveCookieLen   = 96
	curveMessageMin  = 8 + 8 + box.Overhead + 1 // "\x07MESSAGE", nonce, MAC, flags
	curveMetadataMax = maxCommand
)

type curveConn struct {
	net.Conn
	server  bool
	keys    *CurveKeys
	maxBody uint64 // bound on a MESSAGE frame's body

	r       *bufio.Reader
	pending []byte // plaintext for zmq4 to read
	rstate  int    // 0 greeting, 1 handshake, 2 messages
	rerr    error
	peerN   uint64 // last short nonce received

	// zmq4's READY metadata, from its first command; the handshake needs
	// it for READY (server) or INITIATE (client).
	meta chan []byte
	// ready is closed when the handshake is done: MESSAGEs may go out.
	ready  chan struct{}
	closed chan struct{}
	once   sync.Once

	shared [32]byte // box key of the transient pair, after the handshake

	wmu    sync.Mutex // raw writes; sendN
	sendN  uint64
	wgreet int    // greeting bytes of zmq4 still to drop
	wbuf   []byte // zmq4's bytes of an unfinished frame
	plain  []byte // a MESSAGE's plaintext, reused
	rbody  []byte // a MESSAGE's body, reused (Read)
	pbuf   []byte // the plain frame given to zmq4, reused once read
	gotMD  bool
}

// newCurveConn wraps c; a failure to send the greeting fails the first
// Read.
func newCurveConn(c net.Conn, keys *CurveKeys, server bool, maxMessage int64) *curveConn {
	cc := &curveConn{
		Conn: c, server: server, keys: keys,
		maxBody: uint64(maxMessage) + curveMessageMin,
		r:       bufio.NewReaderSize(c, 1<<16),
		meta:    make(chan []byte, 1),
		ready:   make(chan struct{}),
		closed:  make(chan struct{}),
		wgreet:  greetingLen,
	}
	// Our greeting goes out first, whatever zmq4 writes: CURVE, and the
	// server flag.
	g := make([]byte, greetingLen)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 0
	copy(g[12:32], "CURVE")
	if server {
		g[32] = 1
	}
	if _, err := c.Write(g); err != nil {
		cc.rerr = err
	}
	return cc
}

func (c *curveConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// Read gives zmq4 the plaintext NULL-mechanism stream.
func (c *curveConn) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		if c.rerr != nil {
			return 0, c.rerr
		}
		var err error
		switch c.rstate {
		case 0:
			err = c.readGreeting()
		case 1:
			err = c.handshake()
		default:
			err = c.readMessage()
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isTimeout(err) {
				err = fmt.Errorf("%w: %w", ErrCurve, err)
			}
			c.rerr = err
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (c *curveConn) readGreeting() error {
	var g [greetingLen]byte
	if _, err := io.ReadFull(c.r, g[:]); err != nil {
		return err
	}
	if g[0] != 0xff || g[9] != 0x7f || g[10] < 3 {
		return errors.New("bad greeting")
	}
	mech := string(bytes.TrimRight(g[12:32], "\x00"))
	if mech != "CURVE" {
		return fmt.Errorf("the peer speaks the %q mechanism, not CURVE", mech)
	}
	if (g[32] == 1) == c.server {
		return errors.New("both peers claim the same CURVE role")
	}
	// zmq4 sees a NULL peer of its own version (3.0).
	g[10], g[11] = 3, 0
	clear(g[12:32])
	copy(g[12:32], "NULL")
	g[32] = 0
	c.pending = g[:]
	c.rstate = 1
	return nil
}

// readCommand reads one raw command frame and returns its body, which
// must start with name.
func (c *curveConn) readCommand(name string) ([]byte, error) {
	flags, body, err := c.readFrame(nil, maxCommand)
	if err != nil {
		return nil, err
	}
	if flags&flagCommand == 0 || len(body) < 1+len(name) || int(body[0]) != len(name) || string(body[1:1+len(name)]) != name {
		return nil, fmt.Errorf("want a %s command", name)
	}
	return body[1+len(name):], nil
}

// readFrame reads one raw frame of at most limit bytes, into buf when it
// is large enough.
func (c *curveConn) readFrame(buf []byte, limit uint64) (flags byte, body []byte, err error) {
	var h [9]byte
	if _, err := io.ReadFull(c.r, h[:2]); err != nil {
		return 0, nil, err
	}
	flags = h[0]
	if flags&^(flagMore|flagLong|flagCommand) != 0 {
		return 0, nil, fmt.Errorf("reserved flag bits %#x", flags)
	}
	size := uint64(h[1])
	if flags&flagLong != 0 {
		if _, err := io.ReadFull(c.r, h[2:9]); err != nil {
			return 0, nil, err
		}
		size = binary.BigEndian.Uint64(h[1:9])
	}
	if size > limit {
		return 0, nil, fmt.Errorf("%w: a frame of %d bytes (limit %d)", ErrTooLarge, size, limit)
	}
	if uint64(cap(buf)) >= size {
		body = buf[:size]
	} else {
		body = make([]byte, size)
	}
	if _, err := io.ReadFull(c.r, body); err != nil {
		return 0, nil, err
	}
	return flags, body, nil
}

func (c *curveConn) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.Conn.Write(b)
	return err
}

func appendFrame(b []byte, flags byte, body []byte) []byte {
	if len(body) > 255 {
		b = append(b, flags|flagLong)
		b = binary.BigEndian.AppendUint64(b, uint64(len(body)))
	} else {
		b = append(b, flags, byte(len(body)))
	}
	return append(b, body...)
}

func nonce(prefix string, tail []byte) *[24]byte {
	var n [24]byte
	copy(n[:], prefix)
	copy(n[len(prefix):], tail)
	return &n
}

func shortNonce(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// checkNonce keeps the peer's short nonces strictly increasing (no replay).
func (c *curveConn) checkNonce(b []byte) error {
	n := binary.BigEndian.Uint64(b)
	if n <= c.peerN {
		return errors.New("a short nonce was reused")
	}
	c.peerN = n
	return nil
}

// zmqMetadata waits for zmq4's READY metadata.
func (c *curveConn) zmqMetadata() ([]byte, error) {
	select {
	case md := <-c.meta:
		return md, nil
	case <-c.closed:
		return nil, net.ErrClosed
	case <-time.After(DefaultHandshake):
		return nil, errors.New("zmq4 sent no READY")
	}
}

func (c *curveConn) handshake() error {
	var md []byte
	var err error
	if c.server {
		md, err = c.serverHandshake()
	} else {
		md, err = c.clientHandshake()
	}
	if err != nil {
		return err
	}
	// zmq4 reads the peer's metadata as a NULL READY.
	c.pending = appendFrame(nil, flagCommand, append([]byte("\x05READY"), md...))
	c.rstate = 2
	close(c.ready)
	return nil
}

func (c *curveConn) serverHandshake() ([]byte, error) {
	hello, err := c.readCommand("HELLO")
	if err != nil {
		return nil, err
	}
	if len(hello) != curveHelloLen-6 || hello[0] != 1 {
		return nil, errors.New("bad HELLO")
	}
	var cT [32]byte // the client's transient public key C'
	copy(cT[:], hello[74:106])
	hn := hello[106:114]
	if err := c.checkNonce(hn); err != nil {
		return nil, err
	}
	if _, ok := box.Open(nil, hello[114:], nonce("CurveZMQHELLO---", hn), &cT, &c.keys.Secret); !ok {
		return nil, errors.New("HELLO does not open with the server key (a wrong server key?)")
	}

	// WELCOME: our transient key S' and a cookie of C' and s'.
	sT, sTs, err := box.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	var cookieKey [32]byte
	var cn, wn [16]byte
	for _, b := range [][]byte{cookieKey[:], cn[:], wn[:]} {
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
	}
	cookie := append(cn[:0:0], cn[:]...)
	cookie = secretbox.Seal(cookie, append(append([]byte(nil), cT[:]...), sTs[:]...), nonce("COOKIE--", cn[:]), &cookieKey)
	welcome := append([]byte("\x07WELCOME"), wn[:]...)
	welcome = box.Seal(welcome, append(append([]byte(nil), sT[:]...), cookie...), nonce("WELCOME-", wn[:]), &cT, &c.keys.Secret)
	if err := c.writeRaw(appendFrame(nil, flagCommand, welcome)); err != nil {
		return nil, err
	}

	// INITIATE: the cookie back, the client's long-term key C, its vouch
	// for C' and S, and its metadata.
	ini, err := c.readCommand("INITIATE")
	if err != nil {
		return nil, err
	}
	if len(ini) < curveCookieLen+8+box.Overhead+128 {
		return nil, errors.New("short INITIATE")
	}
	if subtle.ConstantTimeCompare(ini[:curveCookieLen], cookie) != 1 {
		return nil, errors.New("INITIATE with another cookie")
	}
	in := ini[curveCookieLen : curveCookieLen+8]
	if err := c.checkNonce(in); err != nil {
		return nil, err
	}
	plain, ok := box.Open(nil, ini[curveCookieLen+8:], nonce("CurveZMQINITIATE", in), &cT, sTs)
	if !ok {
		return nil, errors.New("INITIATE does not open")
	}
	var cL [32]byte // the client's long-term key C
	copy(cL[:], plain[:32])
	vouch, ok := box.Open(nil, plain[48:128], nonce("VOUCH---", plain[32:48]), &cL, sTs)
	if !ok || len(vouch) != 64 || subtle.ConstantTimeCompare(vouch[:32], cT[:]) != 1 || subtle.ConstantTimeCompare(vouch[32:], c.keys.Public[:]) != 1 {
		return nil, errors.New("INITIATE with a bad vouch")
	}
	peerMD := plain[128:]
	box.Precompute(&c.shared, &cT, sTs)

	// READY with zmq4's metadata.
	md, err := c.zmqMetadata()
	if err != nil {
		return nil, err
	}
	c.wmu.Lock()
	c.sendN++
	rn := shortNonce(c.sendN)
	c.wmu.Unlock()
	ready := append([]byte("\x05READY"), rn...)
	ready = box.SealAfterPrecomputation(ready, md, nonce("CurveZMQREADY---", rn), &c.shared)
	if err := c.writeRaw(appendFrame(nil, flagCommand, ready)); err != nil {
		return nil, err
	}
	return peerMD, nil
}

func (c *curveConn) clientHandshake() ([]byte, error) {
	S := &c.keys.Public // the server's key (jupyter_client: the same pair)
	cT, cTs, err := box.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	c.wmu.Lock()
	c.sendN++
	hn := shortNonce(c.sendN)
	c.wmu.Unlock()
	hello := append([]byte("\x05HELLO\x01\x00"), make([]byte, 72)...)
	hello = append(append(hello, cT[:]...), hn...)
	hello = box.Seal(hello, make([]byte, 64), nonce("CurveZMQHELLO---", hn), S, cTs)
	if err := c.writeRaw(appendFrame(nil, flagCommand, hello)); err != nil {
		return nil, err
	}
	w, err := c.readCommand("WELCOME")
	if err != nil {
		return nil, err
	}
	if len(w) != curveWelcomeLen-8 {
		return nil, errors.New("bad WELCOME")
	}
	plain, ok := box.Open(nil, w[16:], nonce("WELCOME-", w[:16]), S, cTs)
	if !ok {
		return nil, errors.New("WELCOME does not open (a wrong server key?)")
	}
	var sT [32]byte
	copy(sT[:], plain[:32])
	cookie := plain[32:]
	box.Precompute(&c.shared, &sT, cTs)

	md, err := c.zmqMetadata()
	if err != nil {
		return nil, err
	}
	var vn [16]byte
	if _, err := rand.Read(vn[:]); err != nil {
		return nil, err
	}
	vouch := append([]byte(nil), vn[:]...)
	vouch = box.Seal(vouch, append(append([]byte(nil), cT[:]...), S[:]...), nonce("VOUCH---", vn[:]), &sT, &c.keys.Secret)
	body := append(append(append([]byte(nil), c.keys.Public[:]...), vouch...), md...)
	c.wmu.Lock()
	c.sendN++
	in := shortNonce(c.sendN)
	c.wmu.Unlock()
	ini := append(append([]byte("\x08INITIATE"), cookie...), in...)
	ini = box.SealAfterPrecomputation(ini, body, nonce("CurveZMQINITIATE", in), &c.shared)
	if err := c.writeRaw(appendFrame(nil, flagCommand, ini)); err != nil {
		return nil, err
	}
	r, err := c.readCommand("READY")
	if err != nil {
		return nil, err
	}
	if len(r) < 8+box.Overhead {
		return nil, errors.New("short READY")
	}
	if err := c.checkNonce(r[:8]); err != nil {
		return nil, err
	}
	peerMD, ok := box.OpenAfterPrecomputation(nil, r[8:], nonce("CurveZMQREADY---", r[:8]), &c.shared)
	if !ok {
		return nil, errors.New("READY does not open")
	}
	return peerMD, nil
}

// readMessage decrypts one MESSAGE into a plaintext frame for zmq4.
func (c *curveConn) readMessage() error {
	_, body, err := c.readFrame(c.rbody, c.maxBody)
	if err != nil {
		return err
	}
	if cap(body) <= reuseMax {
		c.rbody = body[:0]
	}
	if len(body) < curveMessageMin || string(body[:8]) != "\x07MESSAGE" {
		return errors.New("want a MESSAGE")
	}
	if err := c.checkNonce(body[8:16]); err != nil {
		return err
	}
	prefix := "CurveZMQMESSAGEC"
	if !c.server {
		prefix = "CurveZMQMESSAGES"
	}
	// The plaintext (the MESSAGE's flags, then the frame) is opened right
	// behind the plain frame's header, its flags byte on the header's last
	// byte, which the header then takes back.
	n := len(body) - 16 - box.Overhead - 1 // the frame's length
	hl := 2
	if n > 255 {
		hl = 9
	}
	var room [9]byte
	out, ok := box.OpenAfterPrecomputation(append(c.pbuf[:0], room[:hl-1]...), body[16:], nonce(prefix, body[8:16]), &c.shared)
	if !ok {
		return errors.New("a MESSAGE does not authenticate")
	}
	var flags byte
	if out[hl-1]&1 != 0 {
		flags |= flagMore
	}
	if out[hl-1]&2 != 0 {
		flags |= flagCommand
	}
	if hl == 2 {
		out[0], out[1] = flags, byte(n)
	} else {
		out[0] = flags | flagLong
		binary.BigEndian.PutUint64(out[1:9], uint64(n))
	}
	if cap(out) <= reuseMax {
		c.pbuf = out[:0]
	} else {
		c.pbuf = nil
	}
	c.pending = out
	return nil
}

// reuseMax bounds the read buffers a connection keeps between messages.
const reuseMax = 64 << 10

// Write takes zmq4's plaintext stream: its greeting is dropped (ours went
// out), its READY's metadata goes to the handshake, and every later frame
// goes out as a MESSAGE once the handshake is done.
func (c *curveConn) Write(p []byte) (int, error) {
	n := len(p)
	if c.wgreet > 0 {
		k := min(c.wgreet, len(p))
		c.wgreet -= k
		p = p[k:]
	}
	c.wbuf = append(c.wbuf, p...)
	var out []byte
	for {
		flags, body, rest, ok := splitFrame(c.wbuf)
		if !ok {
			break
		}
		c.wbuf = rest
		if flags&flagCommand != 0 && !c.gotMD {
			if len(body) < 6 || string(body[:6]) != "\x05READY" {
				return 0, fmt.Errorf("%w: zmq4 sent no READY first", ErrCurve)
			}
			c.gotMD = true
			c.meta <- append([]byte(nil), body[6:]...)
			continue
		}
		select {
		case <-c.ready:
		case <-c.closed:
			return 0, net.ErrClosed
		}
		var f byte
		if flags&flagMore != 0 {
			f |= 1
		}
		if flags&flagCommand != 0 {
			f |= 2
		}
		c.wmu.Lock()
		c.sendN++
		sn := shortNonce(c.sendN)
		c.wmu.Unlock()
		prefix := "CurveZMQMESSAGES"
		if !c.server {
			prefix = "CurveZMQMESSAGEC"
		}
		// The MESSAGE goes straight into out: its frame header (the
		// length is known), the command name and nonce, then the box.
		c.plain = append(append(c.plain[:0], f), body...)
		size := 16 + box.Overhead + len(c.plain)
		if size > 255 {
			out = append(out, flagLong)
			out = binary.BigEndian.AppendUint64(out, uint64(size))
		} else {
			out = append(out, 0, byte(size))
		}
		out = append(append(out, "\x07MESSAGE"...), sn...)
		out = box.SealAfterPrecomputation(out, c.plain, nonce(prefix, sn), &c.shared)
	}
	if len(c.wbuf) == 0 {
		c.wbuf = nil
	}
	if len(out) > 0 {
		if err := c.writeRaw(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// splitFrame cuts one whole ZMTP frame off b.
func splitFrame(b []byte) (flags byte, body, rest []byte, ok bool) {
	if len(b) < 2 {
		return 0, nil, nil, false
	}
	flags = b[0]
	hl, size := 2, uint64(b[1])
	if flags&flagLong != 0 {
		if len(b) < 9 {
			return 0, nil, nil, false
		}
		hl, size = 9, binary.BigEndian.Uint64(b[1:9])
	}
	if uint64(len(b)-hl) < size {
		return 0, nil, nil, false
	}
	end := hl + int(size)
	return flags, b[hl:end], b[end:], true
}
