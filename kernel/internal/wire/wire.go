package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
)

// Delimiter separates the routing identities from the message proper.
const Delimiter = "<IDS|MSG>"

// Version is the messaging protocol version written in every header.
const Version = "5.5"

// Errors returned (wrapped) by NewSigner and Decode.
var (
	ErrNoDelimiter   = errors.New("wire: no <IDS|MSG> delimiter")
	ErrMissingFrames = errors.New("wire: missing frames")
	ErrBadSignature  = errors.New("wire: invalid signature")
	ErrBadJSON       = errors.New("wire: invalid JSON")
	ErrScheme        = errors.New("wire: unsupported signature scheme")
)

// Header is a message header (and, in replies, the parent header).
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
	// SubshellID names the kernel subshell a shell request is for
	// (protocol 5.5, JEP 91); empty for the main shell.
	SubshellID string `json:"subshell_id,omitempty"`
}

// MarshalJSON writes the zero Header as {}, the parent header of a message
// that answers nothing (the "starting" status).
func (h Header) MarshalJSON() ([]byte, error) {
	if h == (Header{}) {
		return []byte("{}"), nil
	}
	type plain Header // no MarshalJSON method: no recursion
	return json.Marshal(plain(h))
}

// Message is one decoded Jupyter message.
type Message struct {
	Identities   [][]byte
	Header       Header
	ParentHeader Header
	Metadata     map[string]any
	// Content is the raw JSON of the content; handlers decode it into the
	// struct of their message type.
	Content json.RawMessage
	Buffers [][]byte
	// Signature is the hex signature Decode verified (empty when signing
	// is off); Encode computes its own.
	Signature []byte
}

// Signer signs and verifies messages with the key and scheme of a
// connection file. The zero Signer (and one with an empty key) does not
// sign and accepts any signature, as Jupyter specifies.
type Signer struct {
	key  []byte
	hash func() hash.Hash
}

// NewSigner returns a Signer for scheme ("hmac-sha256", also "hmac-sha1"
// and "hmac-sha512") and key.
func NewSigner(scheme string, key []byte) (*Signer, error) {
	if len(key) == 0 {
		return &Signer{}, nil
	}
	var h func() hash.Hash
	switch scheme {
	case "hmac-sha256", "":
		h = sha256.New
	case "hmac-sha512":
		h = sha512.New
	case "hmac-sha1":
		h = sha1.New
	default:
		return nil, fmt.Errorf("%w: %q", ErrScheme, scheme)
	}
	return &Signer{key: bytes.Clone(key), hash: h}, nil
}

// Enabled reports whether messages are signed.
func (s *Signer) Enabled() bool { return s != nil && len(s.key) > 0 }

// sign returns the hex signature of parts, or nil when signing is off.
func (s *Signer) sign(parts ...[]byte) []byte {
	if !s.Enabled() {
		return nil
	}
	m := hmac.New(s.hash, s.key)
	for _, p := range parts {
		m.Write(p)
	}
	sum := m.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// verify checks sig against parts in constant time.
func (s *Signer) verify(sig []byte, parts ...[]byte) bool {
	if !s.Enabled() {
		return true
	}
	want := s.sign(parts...)
	// Comparing the hex forms keeps one constant-time compare and accepts
	// only the lowercase hex that every Jupyter client sends.
	return hmac.Equal(sig, want)
}

// Encode returns the frames of m, signed by s (which may be nil).
func Encode(m *Message, s *Signer) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, fmt.Errorf("wire: encode header: %w", err)
	}
	parent, err := json.Marshal(m.ParentHeader)
	if err != nil {
		return nil, fmt.Errorf("wire: encode parent header: %w", err)
	}
	meta := []byte("{}")
	if len(m.Metadata) > 0 {
		if meta, err = json.Marshal(m.Metadata); err != nil {
			return nil, fmt.Errorf("wire: encode metadata: %w", err)
		}
	}
	content := []byte(m.Content)
	if len(content) == 0 {
		content = []byte("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(Delimiter), s.sign(header, parent, meta, content), header, parent, meta, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// Decode parses and verifies frames. A message with a bad or missing
// signature returns an error wrapping ErrBadSignature before any JSON is
// parsed.
func Decode(frames [][]byte, s *Signer) (*Message, error) {
	d := -1
	for i, f := range frames {
		if string(f) == Delimiter {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, ErrNoDelimiter
	}
	rest := frames[d+1:]
	if len(rest) < 5 {
		return nil, fmt.Errorf("%w: %d after the delimiter, want at least 5", ErrMissingFrames, len(rest))
	}
	sig, header, parent, meta, content := rest[0], rest[1], rest[2], rest[3], rest[4]
	if !s.verify(sig, header, parent, meta, content) {
		return nil, ErrBadSignature
	}
	m := &Message{Identities: frames[:d:d], Buffers: rest[5:], Signature: sig}
	if err := json.Unmarshal(header, &m.Header); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrBadJSON, err)
	}
	if err := json.Unmarshal(parent, &m.ParentHeader); err != nil {
		return nil, fmt.Errorf("%w: parent header: %w", ErrBadJSON, err)
	}
	if err := json.Unmarshal(meta, &m.Metadata); err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", ErrBadJSON, err)
	}
	if !json.Valid(content) {
		return nil, fmt.Errorf("%w: content", ErrBadJSON)
	}
	m.Content = json.RawMessage(content)
	return m, nil
}

// DecodeContent unmarshals m's content into v.
func (m *Message) DecodeContent(v any) error {
	if err := json.Unmarshal(m.Content, v); err != nil {
		return fmt.Errorf("%w: %s content: %w", ErrBadJSON, m.Header.MsgType, err)
	}
	return nil
}

// EncodeContent returns the frames of a minimal message (protocol 5.6's
// start-up handshake): the delimiter, the signature of content, and
// content, with no header, parent or metadata.
func EncodeContent(content []byte, s *Signer) [][]byte {
	return [][]byte{[]byte(Delimiter), s.sign(content), content}
}

// DecodeContentOnly parses and verifies a minimal message of one content
// frame after the delimiter, and returns the content.
func DecodeContentOnly(frames [][]byte, s *Signer) (json.RawMessage, error) {
	d := -1
	for i, f := range frames {
		if string(f) == Delimiter {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, ErrNoDelimiter
	}
	rest := frames[d+1:]
	if len(rest) != 2 {
		return nil, fmt.Errorf("%w: %d after the delimiter, want a signature and a content", ErrMissingFrames, len(rest))
	}
	if !s.verify(rest[0], rest[1]) {
		return nil, ErrBadSignature
	}
	if !json.Valid(rest[1]) {
		return nil, fmt.Errorf("%w: content", ErrBadJSON)
	}
	return json.RawMessage(rest[1]), nil
}
