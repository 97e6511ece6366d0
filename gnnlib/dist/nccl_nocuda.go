//go:build !cuda

package dist

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
)

func newNCCLGroup([]*cuda.Device) ([]Communicator, error) {
	return nil, fmt.Errorf("%w: this binary was built without the cuda tag (rebuild with CGO_ENABLED=1 go build -tags cuda)", ErrNoNCCL)
}

func connectNCCL(*cuda.Device, string, int, int, TCPOptions) (Communicator, error) {
	_, err := newNCCLGroup(nil)
	return nil, err
}

func ncclVersion() (string, error) {
	_, err := newNCCLGroup(nil)
	return "", err
}
