package nn

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ErrFormat is wrapped by load errors about a file that is not a
// parameter file this package can read.
var ErrFormat = errors.New("nn: not a safetensors parameter file")

// ErrMismatch is wrapped by load errors about a file whose parameters do
// not fit the model (count or shape); the message names the parameter.
var ErrMismatch = errors.New("nn: parameters do not match the model")

// maxHeader bounds the JSON header read from a file (safetensors' own
// limit is 100 MB).
const maxHeader = 100 << 20

type tensorInfo struct {
	Dtype       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// Save writes the parameters of m to w in the safetensors format
// (huggingface/safetensors): an 8-byte little-endian header length, a
// JSON header mapping each tensor's name to {"dtype": "F32", "shape",
// "data_offsets": [begin, end]} plus "__metadata__" {"format": "gnnlab",
// "count": "<n>"}, padded with spaces to a multiple of 8 bytes, then the
// tensors' data as little-endian float32, in order. Parameter i is named
// by its position in m.Params(), "0", "1", …, so a file fits any model
// whose Params have the same shapes in the same order. Python reads it
// with safetensors.numpy.load_file. Parameters on a device are copied
// back for writing.
func Save(w io.Writer, m Module) error { return SaveParams(w, m.Params()) }

// SaveParams is Save for a list of tensors.
func SaveParams(w io.Writer, params []*tensor.Tensor) error {
	header := map[string]any{
		"__metadata__": map[string]string{"format": "gnnlab", "count": strconv.Itoa(len(params))},
	}
	var off int64
	for i, p := range params {
		n := int64(p.Len()) * 4
		shape := p.Shape()
		if shape == nil {
			shape = []int{}
		}
		header[strconv.Itoa(i)] = tensorInfo{Dtype: "F32", Shape: shape, DataOffsets: [2]int64{off, off + n}}
		off += n
	}
	h, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("nn: Save: %w", err)
	}
	for (8+len(h))%8 != 0 {
		h = append(h, ' ')
	}
	bw := bufio.NewWriter(w)
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(h)))
	bw.Write(lenBuf[:])
	bw.Write(h)
	var b [4]byte
	for _, p := range params {
		for _, v := range p.CPU().Data() { // a device parameter is copied back
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			bw.Write(b[:])
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("nn: Save: %w", err)
	}
	return nil
}

// Load reads parameters written by Save into the parameters of m, in
// place. It checks the whole file against the model before changing
// anything: a different parameter count or shape gives an error wrapping
// ErrMismatch that names the parameter and both shapes; a file that is not
// safetensors float32 gives an error wrapping ErrFormat. A parameter on a
// device stays there, with its gradient dropped (as To does).
func Load(r io.Reader, m Module) error { return LoadParams(r, m.Params()) }

// LoadParams is Load for a list of tensors.
func LoadParams(r io.Reader, params []*tensor.Tensor) error {
	var lenBuf [8]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return fmt.Errorf("nn: Load: reading the header length: %w (%w)", err, ErrFormat)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxHeader {
		return fmt.Errorf("nn: Load: header of %d bytes: %w", n, ErrFormat)
	}
	h := make([]byte, n)
	if _, err := io.ReadFull(r, h); err != nil {
		return fmt.Errorf("nn: Load: reading the header: %w (%w)", err, ErrFormat)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(h, &raw); err != nil {
		return fmt.Errorf("nn: Load: header: %v: %w", err, ErrFormat)
	}
	delete(raw, "__metadata__")
	if len(raw) != len(params) {
		return fmt.Errorf("nn: Load: the file has %d tensors, the model %d parameters: %w", len(raw), len(params), ErrMismatch)
	}
	infos := make([]tensorInfo, len(params))
	var end int64
	for i, p := range params {
		name := strconv.Itoa(i)
		msg, ok := raw[name]
		if !ok {
			return fmt.Errorf("nn: Load: no tensor %q in the file (names must be 0…%d): %w", name, len(params)-1, ErrMismatch)
		}
		var ti tensorInfo
		if err := json.Unmarshal(msg, &ti); err != nil {
			return fmt.Errorf("nn: Load: tensor %q: %v: %w", name, err, ErrFormat)
		}
		if ti.Dtype != "F32" {
			return fmt.Errorf("nn: Load: tensor %q has dtype %s, want F32: %w", name, ti.Dtype, ErrFormat)
		}
		if !sameInts(ti.Shape, p.Shape()) {
			return fmt.Errorf("nn: Load: parameter %s has shape %v in the file and %v in the model: %w", name, ti.Shape, p.Shape(), ErrMismatch)
		}
		if ti.DataOffsets[1]-ti.DataOffsets[0] != int64(p.Len())*4 || ti.DataOffsets[0] < 0 {
			return fmt.Errorf("nn: Load: tensor %q: data offsets %v do not fit shape %v: %w", name, ti.DataOffsets, ti.Shape, ErrFormat)
		}
		infos[i] = ti
		end = max(end, ti.DataOffsets[1])
	}
	buf := make([]byte, end)
	if _, err := io.ReadFull(r, buf); err != nil {
		return fmt.Errorf("nn: Load: reading %d bytes of data: %w (%w)", end, err, ErrFormat)
	}
	for i, p := range params {
		b := buf[infos[i].DataOffsets[0]:infos[i].DataOffsets[1]]
		d := make([]float32, p.Len())
		for j := range d {
			d[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
		if dev := p.Device(); dev != nil {
			// A device parameter keeps its identity: through the host
			// and back, as To moves a model (its gradient is dropped).
			p.MoveTo(nil)
			copy(p.Data(), d)
			p.MoveTo(dev)
			continue
		}
		copy(p.Data(), d)
	}
	return nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// SaveFile writes m's parameters to the file path (see Save).
func SaveFile(path string, m Module) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("nn: SaveFile: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("nn: SaveFile: %w", cerr)
		}
	}()
	return Save(f, m)
}

// LoadFile reads m's parameters from the file path (see Load).
func LoadFile(path string, m Module) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nn: LoadFile: %w", err)
	}
	defer f.Close()
	if err := Load(bufio.NewReader(f), m); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	return nil
}
