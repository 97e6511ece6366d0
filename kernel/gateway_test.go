package kernel

import (
	"crypto/aes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// decodeGatewayPayload undoes gatewayPayload as Enterprise Gateway's
// ResponseManager does: base64 JSON, the AES key unwrapped with the
// private key, the connection information decrypted block by block and
// unpadded.
func decodeGatewayPayload(t *testing.T, priv *rsa.PrivateKey, payload []byte) map[string]any {
	t.Helper()
	outerJSON, err := base64.StdEncoding.DecodeString(string(payload))
	if err != nil {
		t.Fatalf("payload is not base64: %v", err)
	}
	var outer struct {
		Version  int    `json:"version"`
		Key      string `json:"key"`
		ConnInfo string `json:"conn_info"`
	}
	if err := json.Unmarshal(outerJSON, &outer); err != nil {
		t.Fatalf("payload JSON: %v", err)
	}
	if outer.Version != 1 {
		t.Fatalf("version = %d, want 1", outer.Version)
	}
	wrapped, _ := base64.StdEncoding.DecodeString(outer.Key)
	//lint:ignore SA1019 the gateway's protocol fixes the padding.
	key, err := rsa.DecryptPKCS1v15(nil, priv, wrapped)
	if err != nil {
		t.Fatalf("unwrap AES key: %v", err)
	}
	sealed, _ := base64.StdEncoding.DecodeString(outer.ConnInfo)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || len(sealed)%aes.BlockSize != 0 {
		t.Fatalf("conn_info is %d bytes, want whole AES blocks", len(sealed))
	}
	for i := 0; i < len(sealed); i += aes.BlockSize {
		block.Decrypt(sealed[i:i+aes.BlockSize], sealed[i:i+aes.BlockSize])
	}
	pad := int(sealed[len(sealed)-1])
	if pad < 1 || pad > aes.BlockSize {
		t.Fatalf("bad PKCS#7 padding %d", pad)
	}
	var info map[string]any
	if err := json.Unmarshal(sealed[:len(sealed)-pad], &info); err != nil {
		t.Fatalf("connection info JSON: %v", err)
	}
	return info
}

func TestReportToGateway(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 1024) // the gateway's key size
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c) // the gateway reads to EOF
		got <- b
	}()
	ci := ConnectionInfo{Transport: "tcp", IP: "0.0.0.0", ShellPort: 1001, ControlPort: 1002, StdinPort: 1003,
		IOPubPort: 1004, HBPort: 1005, Key: "k3y", SignatureScheme: "hmac-sha256", KernelName: "gnnlab_distributed", RegistrationPort: 9}
	r := GatewayResponse{Address: ln.Addr().String(), KernelID: "kid-1", PublicKey: base64.StdEncoding.EncodeToString(der)}
	if err := ReportToGateway(t.Context(), r, ci); err != nil {
		t.Fatal(err)
	}
	var payload []byte
	select {
	case payload = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the gateway's listener read no report to EOF within 30 s of ReportToGateway returning")
	}
	info := decodeGatewayPayload(t, priv, payload)
	want := map[string]any{"transport": "tcp", "ip": "0.0.0.0", "shell_port": 1001.0, "control_port": 1002.0,
		"stdin_port": 1003.0, "iopub_port": 1004.0, "hb_port": 1005.0, "key": "k3y", "signature_scheme": "hmac-sha256",
		"kernel_name": "gnnlab_distributed", "kernel_id": "kid-1", "pid": float64(os.Getpid())}
	for k, v := range want {
		if info[k] != v {
			t.Errorf("%s = %v, want %v", k, info[k], v)
		}
	}
	if _, ok := info["registration_port"]; ok {
		t.Errorf("registration_port sent to the gateway: %v", info)
	}
}

func TestReportToGatewayBadKey(t *testing.T) {
	r := GatewayResponse{Address: "127.0.0.1:1", KernelID: "k", PublicKey: "bm90IGEga2V5"} // "not a key"
	if err := ReportToGateway(t.Context(), r, ConnectionInfo{}); err == nil {
		t.Fatal("ReportToGateway with a bad public key: no error")
	}
}

func TestParsePortRange(t *testing.T) {
	for _, tc := range []struct {
		in        string
		low, high int
		ok        bool
	}{
		{"", 0, 0, true}, {"0..0", 0, 0, true}, {"40000..41000", 40000, 41000, true},
		{"41000..40000", 0, 0, false}, {"5..0", 0, 0, false}, {"1..70000", 0, 0, false},
		{"40000-41000", 0, 0, false}, {"a..b", 0, 0, false},
	} {
		low, high, err := ParsePortRange(tc.in)
		if (err == nil) != tc.ok || low != tc.low || high != tc.high {
			t.Errorf("ParsePortRange(%q) = %d, %d, %v; want %d, %d, ok=%v", tc.in, low, high, err, tc.low, tc.high, tc.ok)
		}
	}
}
