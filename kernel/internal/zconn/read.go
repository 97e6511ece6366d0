package zconn

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

const flagCommand = 0x04

type readState int

const (
	rsGreeting readState = iota
	rsFlags
	rsSize
	rsBody
)

// reader follows the ZMTP 3 stream a peer sends and fails before zmq4
// reads past a frame header that announces more than the limit, or past
// bytes that zmq4 would choke on: reserved flag bits, a command with the
// MORE flag or in a multipart message, and a READY command whose metadata
// does not parse (zmq4's parser indexes past its input). zmq4 reads the
// header first and allocates the body after, so failing the Read that
// delivers the header is enough.
type reader struct {
	r   *bufio.Reader
	lim Limits
	// handshake is called when the first command (READY) is complete.
	handshake func()
	err       error

	state    readState
	greeting int // greeting bytes seen
	cmd      bool
	more     bool
	inMsg    bool // a frame with MORE came before: a message is open
	size     [8]byte
	sizeLen  int // size bytes seen
	sizeNeed int
	body     uint64 // body bytes still to come
	cmdBody  []byte
	msg      uint64 // bytes counted for the open message
	commands int

	// onMessage, when set, receives each one-frame message of at most
	// maxSubscription bytes (a subscription, on an XPUB socket).
	onMessage func(body []byte)
	short     []byte
	keep      bool // the current frame is kept in short
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.r.Read(p)
	if n > 0 {
		if e := r.scan(p[:n]); e != nil {
			r.err = e
			return 0, e
		}
	}
	return n, err
}

func (r *reader) scan(p []byte) error {
	for len(p) > 0 {
		switch r.state {
		case rsGreeting:
			k := min(greetingLen-r.greeting, len(p))
			for i := range k {
				switch off := r.greeting + i; {
				case off == 0 && p[i] != 0xff, off == 9 && p[i] != 0x7f:
					return fmt.Errorf("%w: bad greeting signature", ErrProtocol)
				}
			}
			r.greeting += k
			p = p[k:]
			if r.greeting == greetingLen {
				r.state = rsFlags
			}
		case rsFlags:
			f := p[0]
			p = p[1:]
			if f&^(flagMore|flagLong|flagCommand) != 0 {
				return fmt.Errorf("%w: reserved flag bits %#x", ErrProtocol, f)
			}
			r.cmd, r.more = f&flagCommand != 0, f&flagMore != 0
			if r.cmd && (r.more || r.inMsg) {
				return fmt.Errorf("%w: command inside a message", ErrProtocol)
			}
			r.sizeLen, r.sizeNeed = 0, 1
			if f&flagLong != 0 {
				r.sizeNeed = 8
			}
			r.state = rsSize
		case rsSize:
			k := min(r.sizeNeed-r.sizeLen, len(p))
			copy(r.size[r.sizeLen:], p[:k])
			r.sizeLen += k
			p = p[k:]
			if r.sizeLen < r.sizeNeed {
				break
			}
			size := uint64(r.size[0])
			if r.sizeNeed == 8 {
				size = binary.BigEndian.Uint64(r.size[:])
			}
			if r.cmd {
				if size > maxCommand {
					return fmt.Errorf("%w: a command of %d bytes", ErrTooLarge, size)
				}
				r.cmdBody = make([]byte, 0, size)
			} else {
				// Compare before adding: size may be near 2^64.
				if size > uint64(r.lim.MaxMessage) || r.msg+size+frameOverhead > uint64(r.lim.MaxMessage) {
					return fmt.Errorf("%w: a frame of %d bytes after %d (limit %d)", ErrTooLarge, size, r.msg, r.lim.MaxMessage)
				}
				r.msg += size + frameOverhead
				r.keep = r.onMessage != nil && !r.inMsg && !r.more && size <= maxSubscription
				if r.keep {
					r.short = make([]byte, 0, size)
				}
			}
			r.body = size
			r.state = rsBody
			if size == 0 {
				if err := r.endFrame(); err != nil {
					return err
				}
			}
		case rsBody:
			k := len(p)
			if uint64(k) > r.body {
				k = int(r.body)
			}
			if r.cmd {
				r.cmdBody = append(r.cmdBody, p[:k]...)
			} else if r.keep {
				r.short = append(r.short, p[:k]...)
			}
			r.body -= uint64(k)
			p = p[k:]
			if r.body == 0 {
				if err := r.endFrame(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *reader) endFrame() error {
	r.state = rsFlags
	if r.cmd {
		b := r.cmdBody
		r.cmdBody = nil
		if err := checkCommand(b); err != nil {
			return err
		}
		r.commands++
		if r.commands == 1 && r.handshake != nil {
			r.handshake()
		}
		return nil
	}
	if r.keep {
		b := r.short
		r.short, r.keep = nil, false
		r.onMessage(b)
	}
	r.inMsg = r.more
	if !r.more {
		r.msg = 0
	}
	return nil
}

// checkCommand checks a command's name and, for READY, its metadata.
func checkCommand(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: empty command", ErrProtocol)
	}
	n := int(b[0])
	if 1+n > len(b) {
		return fmt.Errorf("%w: command name of %d bytes in %d", ErrProtocol, n, len(b)-1)
	}
	if string(b[1:1+n]) != "READY" {
		return nil
	}
	socketType, found := "", false
	for md := b[1+n:]; len(md) > 0; {
		k := int(md[0])
		if 1+k+4 > len(md) {
			return fmt.Errorf("%w: READY property name", ErrProtocol)
		}
		key := string(md[1 : 1+k])
		v := binary.BigEndian.Uint32(md[1+k:])
		md = md[1+k+4:]
		if uint64(v) > uint64(len(md)) {
			return fmt.Errorf("%w: READY property value", ErrProtocol)
		}
		for i := range len(key) {
			if key[i] >= utf8.RuneSelf {
				return fmt.Errorf("%w: READY property name %q", ErrProtocol, key)
			}
		}
		if isSocketTypeKey(key) {
			socketType, found = string(md[:v]), true
		}
		md = md[v:]
	}
	// zmq4 panics on a peer of a type it does not know, or of none.
	if !found || !knownSocketTypes[socketType] {
		return fmt.Errorf("%w: READY socket type %q", ErrProtocol, socketType)
	}
	return nil
}

var knownSocketTypes = map[string]bool{
	"PAIR": true, "PUB": true, "SUB": true, "REQ": true, "REP": true, "DEALER": true,
	"ROUTER": true, "PULL": true, "PUSH": true, "XPUB": true, "XSUB": true,
}

// isSocketTypeKey reports whether zmq4, which title-cases property names
// (cases.Title, NoLower), files the ASCII name k as "Socket-Type": only the
// initials of its two words may differ.
func isSocketTypeKey(k string) bool {
	return len(k) == 11 && (k[0] == 's' || k[0] == 'S') && k[1:7] == "ocket-" && (k[7] == 't' || k[7] == 'T') && k[8:] == "ype"
}
