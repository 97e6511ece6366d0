package main

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"io"
)

func main() {
	data := []byte("The quick brown fox")
	fmt.Printf("%x\n", md5.Sum(data))
	fmt.Printf("%x\n", sha1.Sum(data))
	fmt.Printf("%x\n", sha256.Sum256(data))
	h := sha256.New()
	io.WriteString(h, "The quick ")
	io.WriteString(h, "brown fox")
	fmt.Printf("%x %d\n", h.Sum(nil), h.Size())
}
