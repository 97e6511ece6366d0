package dist

import "github.com/gnnlab/gnnlab/gnnlib/cuda"

// NewNCCLGroup returns one NCCL communicator per device, rank i on
// devs[i], for one process that drives several GPUs with a goroutine per
// rank (the Device's own locked goroutine runs its NCCL calls). The
// communicators implement TensorCommunicator: AllReduceTensors and
// BroadcastTensors reduce device tensors in place, on the device's stream,
// so that the kernels queued after them see the result; AllReduce and
// Broadcast of host buffers copy them through the device. NCCL is loaded
// at the first call (see NCCLEnv); without it, or in a binary built
// without the cuda tag, the error wraps ErrNoNCCL and names what is
// missing.
func NewNCCLGroup(devs []*cuda.Device) ([]Communicator, error) { return newNCCLGroup(devs) }

// ConnectNCCL joins rank rank of a group of size processes, one GPU each
// (dev), possibly on several hosts: rank 0 makes the NCCL unique id and
// sends it to the others through the TCP bootstrap of ExchangeID at addr,
// then every rank initialises its NCCL communicator with it.
func ConnectNCCL(dev *cuda.Device, addr string, rank, size int, o TCPOptions) (Communicator, error) {
	return connectNCCL(dev, addr, rank, size, o)
}

// NCCLVersion loads NCCL and returns its version and the path it was
// loaded from, e.g. "2.27.3 (/venv/.../libnccl.so.2)", or an error
// wrapping ErrNoNCCL that lists the places tried.
func NCCLVersion() (string, error) { return ncclVersion() }
