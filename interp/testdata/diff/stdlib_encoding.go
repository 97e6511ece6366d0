package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/crc32"
)

func main() {
	sum := sha256.Sum256([]byte("abc"))
	fmt.Println(hex.EncodeToString(sum[:4]))
	enc := base64.StdEncoding.EncodeToString([]byte("hello"))
	dec, _ := base64.StdEncoding.DecodeString(enc)
	fmt.Println(enc, string(dec))
	fmt.Println(crc32.ChecksumIEEE([]byte("x")))
}
