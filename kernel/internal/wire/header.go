package wire

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewHeader returns a header for a new message of msgType in session, with
// a fresh random msg_id and the current time.
func NewHeader(msgType, session string) Header {
	return Header{
		MsgID:    NewID(),
		Session:  session,
		Username: "kernel",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  Version,
	}
}

// NewID returns a random UUID (version 4) in its usual text form.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}
