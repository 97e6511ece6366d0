package kernel_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/install"
	"github.com/gnnlab/gnnlab/kernel"
)

// TestProtocolVersionAgrees: the kernelspec advertises the version that
// kernel_info answers.
func TestProtocolVersionAgrees(t *testing.T) {
	if got := install.NewSpec("gnnlab").KernelProtocolVersion; got != kernel.ProtocolVersion {
		t.Errorf("kernelspec kernel_protocol_version = %q, want kernel.ProtocolVersion %q", got, kernel.ProtocolVersion)
	}
	if got := install.NewGatewaySpec("gnnlab").KernelProtocolVersion; got != kernel.ProtocolVersion {
		t.Errorf("gateway kernelspec kernel_protocol_version = %q, want %q", got, kernel.ProtocolVersion)
	}
}

// TestIOPubWelcome: a client's iopub socket receives an iopub_welcome
// naming its subscription before anything else (protocol 5.5, XPUB).
func TestIOPubWelcome(t *testing.T) {
	for _, transport := range []string{"tcp", "ipc"} {
		t.Run(transport, func(t *testing.T) {
			c := start(t, transport)
			w := c.Welcome()
			if w == nil {
				t.Fatal("the first iopub message was not an iopub_welcome")
			}
			if sub, ok := w.Content["subscription"]; !ok || sub != "" {
				t.Errorf("iopub_welcome content = %v, want subscription \"\"", w.Content)
			}
			if w.ParentID != "" {
				t.Errorf("iopub_welcome parent = %q, want none", w.ParentID)
			}
		})
	}
}
