package zconn

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// greetingBytes is a ZMTP 3.0 NULL greeting as a client sends it.
func greetingBytes() []byte {
	g := make([]byte, greetingLen)
	g[0], g[9], g[10] = 0xff, 0x7f, 3
	copy(g[12:], "NULL")
	return g
}

func readyCommand(props ...string) []byte {
	body := []byte("\x05READY")
	for i := 0; i+1 < len(props); i += 2 {
		body = append(body, byte(len(props[i])))
		body = append(body, props[i]...)
		body = binary.BigEndian.AppendUint32(body, uint32(len(props[i+1])))
		body = append(body, props[i+1]...)
	}
	return frame(flagCommand, body)
}

func longHeader(flag byte, size uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{flag | flagLong}, size)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestReaderChecks(t *testing.T) {
	ready := readyCommand("Socket-Type", "DEALER", "Identity", "abc")
	lim := Limits{MaxMessage: 1 << 20}.withDefaults()
	tests := []struct {
		name   string
		stream []byte
		want   error // nil: the whole stream reads
	}{
		{"valid", cat(greetingBytes(), ready, frame(flagMore, []byte("id")), frame(0, bytes.Repeat([]byte("x"), 300))), nil},
		{"empty message frames", cat(greetingBytes(), ready, frame(flagMore, nil), frame(0, nil)), nil},
		{"2^50 command after greeting", cat(greetingBytes(), longHeader(flagCommand, 1<<50)), ErrTooLarge},
		{"2^50 frame after READY", cat(greetingBytes(), ready, longHeader(0, 1<<50)), ErrTooLarge},
		{"2^64-1 frame", cat(greetingBytes(), ready, longHeader(0, ^uint64(0))), ErrTooLarge},
		{"frames adding up over the limit", cat(greetingBytes(), ready, longHeader(flagMore, 600<<10), make([]byte, 600<<10), longHeader(0, 600<<10)), ErrTooLarge},
		{"many empty frames", cat(greetingBytes(), ready, bytes.Repeat([]byte{flagMore, 0}, (1<<20)/frameOverhead+1)), ErrTooLarge},
		{"reserved flag bits", cat(greetingBytes(), ready, []byte{0x80, 0}), ErrProtocol},
		{"command with MORE", cat(greetingBytes(), []byte{flagCommand | flagMore, 0}), ErrProtocol},
		{"command inside a message", cat(greetingBytes(), ready, frame(flagMore, []byte("a")), frame(flagCommand, []byte("\x04PING"))), ErrProtocol},
		{"empty command", cat(greetingBytes(), frame(flagCommand, nil)), ErrProtocol},
		{"command name past the end", cat(greetingBytes(), frame(flagCommand, []byte("\x09READY"))), ErrProtocol},
		{"READY name length at the end", cat(greetingBytes(), frame(flagCommand, []byte("\x05READY\x01"))), ErrProtocol},
		{"READY value length cut", cat(greetingBytes(), frame(flagCommand, []byte("\x05READY\x01A\x00\x00"))), ErrProtocol},
		{"READY value past the end", cat(greetingBytes(), frame(flagCommand, []byte("\x05READY\x01A\x00\x00\x00\x09xy"))), ErrProtocol},
		{"READY of an unknown socket type", cat(greetingBytes(), readyCommand("Socket-Type", "DEAL'R")), ErrProtocol},
		{"READY without a socket type", cat(greetingBytes(), readyCommand("Identity", "x")), ErrProtocol},
		{"READY with a type zmq4 does not see", cat(greetingBytes(), readyCommand("SOCKET-TYPE", "DEALER")), ErrProtocol},
		{"READY with a non-ASCII name", cat(greetingBytes(), readyCommand("\u017focket-type", "DEALER")), ErrProtocol},
		{"READY, lower-case name", cat(greetingBytes(), readyCommand("socket-type", "SUB")), nil},
		{"bad signature", cat([]byte{0x00}, greetingBytes()[1:]), ErrProtocol},
		{"bad signature footer", cat(greetingBytes()[:9], []byte{0}, greetingBytes()[10:]), ErrProtocol},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 7, 1 << 20} {
			r := &reader{r: bufio.NewReader(&chunked{b: tt.stream, n: chunk}), lim: lim}
			_, err := io.Copy(io.Discard, r)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("%s (chunks of %d): read = %v, want %v", tt.name, chunk, err, tt.want)
			}
		}
	}
}

// chunked reads b in pieces of at most n bytes.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.b))
	copy(p, c.b[:k])
	c.b = c.b[k:]
	return k, nil
}
