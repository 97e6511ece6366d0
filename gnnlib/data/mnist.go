package data

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// MNISTURL is the mirror that MNIST downloads from (PyTorch's, since the
// original site no longer serves the files reliably).
const MNISTURL = "https://ossci-datasets.s3.amazonaws.com/mnist/"

// IDX magic numbers: two zero bytes, the element type (0x08: unsigned
// byte) and the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// ImageSet is a set of labelled images.
type ImageSet struct {
	// Name is the set's name, such as "mnist-test".
	Name string
	// X holds the images as an N×C×H×W tensor with values in [0, 1].
	X *tensor.Tensor
	// Y holds each image's class.
	Y []int
	// NumClasses is the number of classes.
	NumClasses int
}

// Len returns the number of images.
func (s *ImageSet) Len() int { return len(s.Y) }

// String summarises the set.
func (s *ImageSet) String() string {
	return fmt.Sprintf("%s(images=%d, shape=%v, classes=%d)", s.Name, len(s.Y), s.X.Shape(), s.NumClasses)
}

// MNIST loads the MNIST digits of one split, "test" (the 10,000 t10k
// images) or "train" (60,000), as a N×1×28×28 tensor scaled to [0, 1] and
// labels 0–9. It reads the IDX files (gzip) from $GNNLAB_DATA/mnist, else
// from CacheDir()/mnist, else downloads them there from MNISTURL (unless
// GNNLAB_OFFLINE is set), checking the known sha256 sums. A missing or
// corrupt file gives a *FileError naming it and where it was looked for.
func MNIST(split string) (*ImageSet, error) {
	var prefix string
	switch strings.ToLower(split) {
	case "test", "t10k":
		prefix = "t10k"
	case "train":
		prefix = "train"
	default:
		return nil, fmt.Errorf("data: MNIST(%q): want \"train\" or \"test\": %w", split, ErrUnknownDataset)
	}
	src := func(kind string) source {
		name := prefix + "-" + kind + "-ubyte.gz"
		return source{name: name, subdirs: []string{"mnist", "MNIST/raw"}, cache: "mnist", url: MNISTURL + name, sha256: knownSHA256[name]}
	}
	type images struct {
		n, h, w int
		pix     []byte
	}
	img, err := withFile(src("images-idx3"), func(r *bufio.Reader) (images, error) {
		dims, body, err := readIDX(r, idxImagesMagic, 3)
		if err != nil {
			return images{}, err
		}
		if int64(dims[0])*int64(dims[1])*int64(dims[2]) > 1<<32 {
			return images{}, fmt.Errorf("IDX dimensions %v too large", dims)
		}
		pix := make([]byte, dims[0]*dims[1]*dims[2])
		if _, err := io.ReadFull(body, pix); err != nil {
			return images{}, fmt.Errorf("pixels of %d images: %w", dims[0], err)
		}
		return images{dims[0], dims[1], dims[2], pix}, nil
	})
	if err != nil {
		return nil, err
	}
	labels, err := withFile(src("labels-idx1"), func(r *bufio.Reader) ([]int, error) {
		dims, body, err := readIDX(r, idxLabelsMagic, 1)
		if err != nil {
			return nil, err
		}
		if dims[0] != img.n {
			return nil, fmt.Errorf("%d labels for %d images", dims[0], img.n)
		}
		raw := make([]byte, dims[0])
		if _, err := io.ReadFull(body, raw); err != nil {
			return nil, fmt.Errorf("%d labels: %w", dims[0], err)
		}
		out := make([]int, len(raw))
		for i, b := range raw {
			if b > 9 {
				return nil, fmt.Errorf("label %d of image %d", b, i)
			}
			out[i] = int(b)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	x := make([]float32, len(img.pix))
	for i, p := range img.pix {
		x[i] = float32(p) / 255
	}
	return &ImageSet{
		Name:       "mnist-" + strings.ToLower(prefix),
		X:          tensor.Wrap(x, img.n, 1, img.h, img.w),
		Y:          labels,
		NumClasses: 10,
	}, nil
}

// readIDX checks the gzip stream's IDX header (the magic number and rank)
// and returns the dimensions and a reader positioned at the data.
func readIDX(r io.Reader, magic uint32, rank int) ([]int, io.Reader, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("gzip: %w", err)
	}
	var head [4]byte
	if _, err := io.ReadFull(z, head[:]); err != nil {
		return nil, nil, fmt.Errorf("IDX header: %w", err)
	}
	if got := binary.BigEndian.Uint32(head[:]); got != magic {
		return nil, nil, fmt.Errorf("IDX magic number %#08x, want %#08x", got, magic)
	}
	dims := make([]int, rank)
	for i := range dims {
		if _, err := io.ReadFull(z, head[:]); err != nil {
			return nil, nil, fmt.Errorf("IDX dimension %d: %w", i, err)
		}
		d := binary.BigEndian.Uint32(head[:])
		// 1<<26 bytes per dimension bounds a corrupt header's allocation.
		if d > 1<<26 {
			return nil, nil, fmt.Errorf("IDX dimension %d of size %d", i, d)
		}
		dims[i] = int(d)
	}
	return dims, z, nil
}
