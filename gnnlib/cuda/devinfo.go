package cuda

import "github.com/gnnlab/gnnlab/gnnlib/tensor"

// Memory returns MemStats in tensor's terms, so that code that reaches the
// device through tensor.Device (the session's %gpu) reads its memory with
// tensor.MemoryOf.
func (d *Device) Memory() (tensor.Memory, error) {
	m, err := d.MemStats()
	return tensor.Memory{Total: m.Total, Free: m.Free, InUse: m.InUse, Peak: m.Peak, Reserved: m.Reserved}, err
}
