package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// TestStdinEOF reads os.Stdin to the end through a real worker: the
// frontend answers two input requests with lines and the third with
// ReplyEOF; the cell sees io.EOF then, and again on a later read
// without another request.
func TestStdinEOF(t *testing.T) {
	c, out := start(t)
	code := `import (
	"bufio"
	"fmt"
	"io"
	"os"
)

sc := bufio.NewScanner(os.Stdin)
for sc.Scan() {
	fmt.Printf("line %q\n", sc.Text())
}
fmt.Println("scan err:", sc.Err())
_, err := os.Stdin.Read(make([]byte, 1))
fmt.Println("again:", err == io.EOF)
`
	answers := []string{"a", "b"}
	requests := 0
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.Execute(ctx, client.Cell{Code: code, AllowStdin: true}, func(ev workerproto.Event) {
		if ev.Kind != workerproto.EvInputRequest {
			return
		}
		requests++
		if len(answers) == 0 {
			if err := c.ReplyEOF(); err != nil {
				t.Errorf("ReplyEOF() = %v", err)
			}
			return
		}
		if err := c.Reply(answers[0]); err != nil {
			t.Errorf("Reply(%q) = %v", answers[0], err)
		}
		answers = answers[1:]
	})
	if err != nil || res.Error != nil {
		t.Fatalf("Execute = %v, %+v", err, res.Error)
	}
	want := "line \"a\"\nline \"b\"\nscan err: <nil>\nagain: true\n"
	if got := out.take(); got != want {
		t.Errorf("cell printed %q, want %q", got, want)
	}
	if requests != 3 {
		t.Errorf("input requests = %d, want 3 (two lines, then the end)", requests)
	}
	// The next cell's input starts afresh.
	res, err = c.Execute(ctx, client.Cell{Code: `var s string; n, err := fmt.Scanln(&s); fmt.Println(n, err, s)`, AllowStdin: true}, func(ev workerproto.Event) {
		if ev.Kind == workerproto.EvInputRequest {
			_ = c.Reply("z")
		}
	})
	if err != nil || res.Error != nil {
		t.Fatalf("Execute(next cell) = %v, %+v", err, res.Error)
	}
	if got := out.take(); got != "1 <nil> z\n" {
		t.Errorf("next cell printed %q, want %q", got, "1 <nil> z\n")
	}
}
