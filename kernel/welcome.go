package kernel

import (
	"encoding/json"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
)

// welcomer greets each new iopub subscriber with an iopub_welcome
// (protocol 5.5): zconn sees the subscription on the connection and sends
// the welcome to that subscriber alone, ahead of anything published after
// the subscription, so a client that waits for it misses no output.
type welcomer Kernel

// Welcome returns the frames of the iopub_welcome for topic: the topic as
// the message's first frame when it is not empty (so that it passes the
// subscriber's filter), then the signed message.
func (w *welcomer) Welcome(topic []byte) [][]byte {
	k := (*Kernel)(w)
	body, err := json.Marshal(map[string]string{"subscription": string(topic)})
	if err != nil {
		return nil
	}
	m := &wire.Message{
		Header:  wire.NewHeader("iopub_welcome", k.session),
		Content: body,
	}
	if len(topic) > 0 {
		m.Identities = [][]byte{append([]byte(nil), topic...)}
	}
	frames, err := wire.Encode(m, k.signer)
	if err != nil {
		k.log.Printf("iopub_welcome: %v", err)
		return nil
	}
	return frames
}
