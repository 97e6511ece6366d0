package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
)

// writeNPY writes a little-endian array in NumPy's .npy format, version
// 1.0: a magic string, a header dict padded with spaces to a multiple of
// 64 bytes, then the raw data. descr is "<f4", "<i4" or "<i8".
func writeNPY(path, descr string, shape []int, data any) error {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	// magic (6) + version (2) + header length (2) + header + '\n'
	pad := 64 - (10+len(header)+1)%64
	if pad == 64 {
		pad = 0
	}
	header += strings.Repeat(" ", pad) + "\n"

	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cpubench: %w", err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	if err := binary.Write(w, binary.LittleEndian, data); err != nil {
		f.Close()
		return fmt.Errorf("cpubench: write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("cpubench: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cpubench: %w", err)
	}
	return nil
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
