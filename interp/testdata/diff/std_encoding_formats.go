package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
)

func main() {
	msg := []byte("hello, gopher")
	b64 := base64.StdEncoding.EncodeToString(msg)
	fmt.Println(b64, base64.URLEncoding.EncodeToString([]byte{0xfb, 0xff}))
	back, err := base64.StdEncoding.DecodeString(b64)
	fmt.Println(string(back), err)
	_, err = base64.StdEncoding.DecodeString("!!")
	fmt.Println(err)
	fmt.Println(hex.EncodeToString([]byte{0xde, 0xad, 0xbe, 0xef}))
	fmt.Print(hex.Dump([]byte("abc")))
	buf := make([]byte, 8)
	binary.LittleEndian.PutUint32(buf, 0x01020304)
	binary.BigEndian.PutUint16(buf[4:], 0xabcd)
	fmt.Println(buf, binary.LittleEndian.Uint32(buf))
	vb := binary.AppendUvarint(nil, 300)
	n, k := binary.Uvarint(vb)
	fmt.Println(vb, n, k)
	fmt.Println(crc32.ChecksumIEEE(msg))
}
