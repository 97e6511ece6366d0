package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testKey is the fixed key of the golden files.
var testKey = []byte("a0436f6c-1916-498b-8eb9-e81ab9368e84")

func goldenMessages() map[string]*Message {
	req := Header{MsgID: "m-1", Session: "s-1", Username: "user", Date: "2024-01-02T03:04:05.000000Z", MsgType: "execute_request", Version: Version}
	return map[string]*Message{
		"execute_request": {
			Identities: [][]byte{[]byte("client-1")},
			Header:     req,
			Metadata:   map[string]any{},
			Content:    json.RawMessage(`{"code":"fmt.Println(\"héllo\")","silent":false,"store_history":true,"user_expressions":{},"allow_stdin":true,"stop_on_error":true}`),
		},
		"status_starting": {
			Header:  Header{MsgID: "k-1", Session: "ks", Username: "kernel", Date: "2024-01-02T03:04:05.000000Z", MsgType: "status", Version: Version},
			Content: json.RawMessage(`{"execution_state":"starting"}`),
		},
		"stream_with_buffers": {
			Identities:   [][]byte{[]byte("a"), []byte("b")},
			Header:       Header{MsgID: "k-2", Session: "ks", Username: "kernel", Date: "2024-01-02T03:04:06.000000Z", MsgType: "comm_msg", Version: Version},
			ParentHeader: req,
			Metadata:     map[string]any{"k": "v"},
			Content:      json.RawMessage(`{"comm_id":"c","data":{}}`),
			Buffers:      [][]byte{{0, 1, 2, 255}},
		},
	}
}

// writeFrames stores frames one per line, Go-quoted, so that the golden
// files stay readable and diffable.
func writeFrames(frames [][]byte) []byte {
	var b bytes.Buffer
	for _, f := range frames {
		b.WriteString(strconv.Quote(string(f)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func readFrames(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var frames [][]byte
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("golden line %q: %v", line, err)
		}
		frames = append(frames, []byte(s))
	}
	return frames
}

func TestGolden(t *testing.T) {
	s, err := NewSigner("hmac-sha256", testKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range goldenMessages() {
		t.Run(name, func(t *testing.T) {
			frames, err := Encode(m, s)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, writeFrames(frames), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			want := readFrames(t, data)
			if !reflect.DeepEqual(frames, want) {
				t.Errorf("Encode(%s) =\n%s\nwant\n%s", name, writeFrames(frames), data)
			}
			got, err := Decode(want, s)
			if err != nil {
				t.Fatalf("Decode(%s) error %v", name, err)
			}
			if got.Header != m.Header || got.ParentHeader != m.ParentHeader {
				t.Errorf("Decode(%s) headers = %+v, %+v, want %+v, %+v", name, got.Header, got.ParentHeader, m.Header, m.ParentHeader)
			}
			if string(got.Content) != string(m.Content) {
				t.Errorf("Decode(%s) content = %s, want %s", name, got.Content, m.Content)
			}
			if len(got.Identities) != len(m.Identities) || len(got.Buffers) != len(m.Buffers) {
				t.Errorf("Decode(%s) = %d identities, %d buffers, want %d, %d", name, len(got.Identities), len(got.Buffers), len(m.Identities), len(m.Buffers))
			}
		})
	}
}

func TestVerify(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", testKey)
	other, _ := NewSigner("hmac-sha256", []byte("another key"))
	good, err := Encode(goldenMessages()["execute_request"], s)
	if err != nil {
		t.Fatal(err)
	}
	sigAt := 2 // identity, delimiter, signature
	mutate := func(f func(frames [][]byte) [][]byte) [][]byte {
		c := make([][]byte, len(good))
		for i := range good {
			c[i] = bytes.Clone(good[i])
		}
		return f(c)
	}
	tests := []struct {
		name   string
		frames [][]byte
		signer *Signer
		want   error
	}{
		{"good", good, s, nil},
		{"missing signature", mutate(func(f [][]byte) [][]byte { f[sigAt] = nil; return f }), s, ErrBadSignature},
		{"flipped bit", mutate(func(f [][]byte) [][]byte { f[sigAt][0] ^= 1; return f }), s, ErrBadSignature},
		{"uppercase hex", mutate(func(f [][]byte) [][]byte { f[sigAt] = bytes.ToUpper(f[sigAt]); return f }), s, ErrBadSignature},
		{"tampered content", mutate(func(f [][]byte) [][]byte { f[len(f)-1] = []byte(`{"code":"os.Exit(1)"}`); return f }), s, ErrBadSignature},
		{"other key", good, other, ErrBadSignature},
		{"no key accepts any", mutate(func(f [][]byte) [][]byte { f[sigAt] = []byte("junk"); return f }), &Signer{}, nil},
		{"no delimiter", good[:1], s, ErrNoDelimiter},
		{"too few frames", good[:5], s, ErrMissingFrames},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.frames, tt.signer)
			if !errors.Is(err, tt.want) && !(err == nil && tt.want == nil) {
				t.Errorf("Decode(%s) = %v, want %v", tt.name, err, tt.want)
			}
		})
	}
}

func TestDecodeBadJSON(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", testKey)
	for _, parts := range [][4]string{
		{`nope`, `{}`, `{}`, `{}`},
		{`{}`, `[1]`, `{}`, `{}`},
		{`{}`, `{}`, `"x"`, `{}`},
		{`{}`, `{}`, `{}`, `{"a":`},
	} {
		b := [][]byte{[]byte(parts[0]), []byte(parts[1]), []byte(parts[2]), []byte(parts[3])}
		frames := append([][]byte{[]byte(Delimiter), s.sign(b...)}, b...)
		if _, err := Decode(frames, s); !errors.Is(err, ErrBadJSON) {
			t.Errorf("Decode(%q) = %v, want %v", parts, err, ErrBadJSON)
		}
	}
}

func TestNewSigner(t *testing.T) {
	if _, err := NewSigner("hmac-md5", []byte("k")); !errors.Is(err, ErrScheme) {
		t.Errorf("NewSigner(hmac-md5) = %v, want %v", err, ErrScheme)
	}
	s, err := NewSigner("hmac-md5", nil)
	if err != nil || s.Enabled() {
		t.Errorf("NewSigner(hmac-md5, no key) = %v, %v, want a disabled signer", s, err)
	}
}

func TestNewID(t *testing.T) {
	a, b := NewID(), NewID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Errorf("NewID() = %q, %q, want two distinct version-4 UUIDs", a, b)
	}
}

func TestHeaderZero(t *testing.T) {
	b, err := json.Marshal(Header{})
	if err != nil || string(b) != "{}" {
		t.Errorf("json.Marshal(Header{}) = %s, %v, want {}", b, err)
	}
}

func FuzzDecode(f *testing.F) {
	s, _ := NewSigner("hmac-sha256", testKey)
	for _, m := range goldenMessages() {
		frames, _ := Encode(m, s)
		f.Add(bytes.Join(frames, []byte{0xff, 0xfe}))
		f.Add(bytes.Join(frames[:3], []byte{0xff, 0xfe}))
	}
	f.Add([]byte(""))
	f.Add([]byte(Delimiter))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte{0xff, 0xfe})
		for _, signer := range []*Signer{s, {}} {
			m, err := Decode(frames, signer)
			if err == nil && m == nil {
				t.Fatalf("Decode(%q) = nil, nil", data)
			}
			if err != nil && m != nil {
				t.Fatalf("Decode(%q) = %v and a message", data, err)
			}
			if err == nil {
				// A decoded message must encode again.
				if _, err := Encode(m, signer); err != nil {
					t.Fatalf("Encode(Decode(%q)) = %v", data, err)
				}
			}
		}
	})
}

func BenchmarkEncodeDecode(b *testing.B) {
	s, _ := NewSigner("hmac-sha256", testKey)
	m := goldenMessages()["execute_request"]
	b.ReportAllocs()
	for b.Loop() {
		frames, err := Encode(m, s)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Decode(frames, s); err != nil {
			b.Fatal(fmt.Sprint(err))
		}
	}
}

// TestContentOnly: protocol 5.6's minimal messages round-trip, and a bad
// signature, a missing frame or bad JSON is an error.
func TestContentOnly(t *testing.T) {
	s, err := NewSigner("hmac-sha256", []byte("key"))
	if err != nil {
		t.Fatal(err)
	}
	content := []byte(`{"kernel_id":"k"}`)
	frames := EncodeContent(content, s)
	got, err := DecodeContentOnly(append([][]byte{[]byte("ident")}, frames...), s)
	if err != nil || string(got) != string(content) {
		t.Fatalf("DecodeContentOnly(EncodeContent(%s)) = %s, %v", content, got, err)
	}
	other, _ := NewSigner("hmac-sha256", []byte("other"))
	if _, err := DecodeContentOnly(frames, other); !errors.Is(err, ErrBadSignature) {
		t.Errorf("DecodeContentOnly with another key = %v, want ErrBadSignature", err)
	}
	if _, err := DecodeContentOnly(frames[:2], s); !errors.Is(err, ErrMissingFrames) {
		t.Errorf("DecodeContentOnly without content = %v, want ErrMissingFrames", err)
	}
	bad := EncodeContent([]byte("{"), s)
	if _, err := DecodeContentOnly(bad, s); !errors.Is(err, ErrBadJSON) {
		t.Errorf("DecodeContentOnly of bad JSON = %v, want ErrBadJSON", err)
	}
}
