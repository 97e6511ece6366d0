package kernel

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Jupyter Enterprise Gateway's remote process proxies (the
// DistributedProcessProxy among them) start a kernel with a response
// address, a kernel id and an RSA public key in place of a connection
// file. The kernel binds its own ports and a key, then opens a TCP
// connection to the response address and writes its connection
// information there, encrypted: AES-128 (ECB, PKCS#7 padding) under a
// fresh key, that key encrypted with the gateway's public key (PKCS#1
// v1.5), both base64 in a JSON object {"version": 1, "key", "conn_info"},
// the whole base64 again. This is the format of the gateway's own kernel
// launchers (launcher version 1), the one its ResponseManager decodes.

// GatewayResponse says where and how to report the kernel's connection
// information to Enterprise Gateway.
type GatewayResponse struct {
	// Address is the gateway's response address, host:port.
	Address string
	// KernelID is the gateway's id of this kernel.
	KernelID string
	// PublicKey is the gateway's RSA public key: base64 DER
	// (SubjectPublicKeyInfo), the PEM block without its armour.
	PublicKey string
}

// gatewayConnInfo is the connection information the gateway decodes: a
// connection file's fields, the kernel id it files them under and the
// kernel's pid (the gateway signals it there).
type gatewayConnInfo struct {
	ConnectionInfo
	KernelID string `json:"kernel_id"`
	PID      int    `json:"pid"`
}

// ReportToGateway sends ci, encrypted for r.PublicKey, to r.Address.
func ReportToGateway(ctx context.Context, r GatewayResponse, ci ConnectionInfo) error {
	payload, err := gatewayPayload(r, ci)
	if err != nil {
		return err
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", r.Address)
	if err != nil {
		return fmt.Errorf("kernel: gateway response address: %w", err)
	}
	// The gateway reads until the connection closes.
	if _, err := conn.Write(payload); err != nil {
		conn.Close()
		return fmt.Errorf("kernel: send to gateway %s: %w", r.Address, err)
	}
	if err := conn.Close(); err != nil {
		return fmt.Errorf("kernel: send to gateway %s: %w", r.Address, err)
	}
	return nil
}

// gatewayPayload returns the bytes ReportToGateway sends.
func gatewayPayload(r GatewayResponse, ci ConnectionInfo) ([]byte, error) {
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(r.PublicKey))
	if err != nil {
		return nil, fmt.Errorf("kernel: gateway public key: %w", err)
	}
	parsed, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("kernel: gateway public key: %w", err)
	}
	pub, ok := parsed.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("kernel: gateway public key is a %T, want RSA", parsed)
	}
	ci.RegistrationPort = 0
	info, err := json.Marshal(gatewayConnInfo{ConnectionInfo: ci, KernelID: r.KernelID, PID: os.Getpid()})
	if err != nil {
		return nil, fmt.Errorf("kernel: encode connection info: %w", err)
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (Go 1.24+).
	sealed, err := encryptECB(key, info)
	if err != nil {
		return nil, err
	}
	// The gateway decrypts with PKCS#1 v1.5 only (its ResponseManager).
	//lint:ignore SA1019 the gateway's protocol fixes the padding.
	wrapped, err := rsa.EncryptPKCS1v15(rand.Reader, pub, key)
	if err != nil {
		return nil, fmt.Errorf("kernel: encrypt for the gateway: %w", err)
	}
	outer, err := json.Marshal(map[string]any{
		"version":   1,
		"key":       base64.StdEncoding.EncodeToString(wrapped),
		"conn_info": base64.StdEncoding.EncodeToString(sealed),
	})
	if err != nil {
		return nil, fmt.Errorf("kernel: encode gateway payload: %w", err)
	}
	return []byte(base64.StdEncoding.EncodeToString(outer)), nil
}

// encryptECB pads plain to whole AES blocks (PKCS#7) and encrypts each
// block alone, as the gateway's decoder expects.
func encryptECB(key, plain []byte) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	n := aes.BlockSize - len(plain)%aes.BlockSize
	buf := append(bytes.Clone(plain), bytes.Repeat([]byte{byte(n)}, n)...)
	for i := 0; i < len(buf); i += aes.BlockSize {
		block.Encrypt(buf[i:i+aes.BlockSize], buf[i:i+aes.BlockSize])
	}
	return buf, nil
}

// ParsePortRange parses the gateway's port range, "LOW..HIGH"; "0..0" or
// "" (no range configured) returns 0, 0.
func ParsePortRange(s string) (low, high int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, nil
	}
	lo, hi, ok := strings.Cut(s, "..")
	if !ok {
		return 0, 0, fmt.Errorf("kernel: port range %q: want LOW..HIGH", s)
	}
	if low, err = strconv.Atoi(lo); err == nil {
		high, err = strconv.Atoi(hi)
	}
	if err != nil || low < 0 || high > 65535 || (high != 0 && low >= high) || (high == 0 && low != 0) {
		return 0, 0, fmt.Errorf("kernel: port range %q: want LOW..HIGH with 0 < LOW < HIGH <= 65535, or 0..0", s)
	}
	return low, high, nil
}
