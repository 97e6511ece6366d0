package client_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// TestReplaySkipsStdinAndNamesWhatIsMissing: %replay skips a cell that
// read standard input, goes on past a cell that fails, and names the
// variables that neither restored.
func TestReplaySkipsStdinAndNamesWhatIsMissing(t *testing.T) {
	c, out := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	file := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	exec(t, c, "import \"fmt\"\nimport \"os\"\na := 1")
	res, err := c.Execute(ctx, client.Cell{Code: "var name string\nfmt.Scanln(&name)", AllowStdin: true}, func(ev workerproto.Event) {
		if ev.Kind == workerproto.EvInputRequest {
			if err := c.Reply("bob"); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil || res.Error != nil {
		t.Fatalf("stdin cell = %+v, %v", res.Error, err)
	}
	if _, ce := exec(t, c, "content, err := os.ReadFile("+strconv.Quote(file)+")\nif err != nil { panic(err) }"); ce != nil {
		t.Fatalf("ReadFile cell: %+v", ce)
	}
	exec(t, c, "b := a + 1")
	exec(t, c, "import \"time\"\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	out.take()

	done := make(chan struct{})
	var ce *workerproto.CellError
	go func() {
		defer close(done)
		_, ce = exec(t, c, "%replay")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("%replay blocks")
	}
	if ce == nil || ce.Name != "replay incomplete" || !strings.Contains(ce.Value, "the session lacks content, err, name") {
		t.Fatalf("%%replay error = %+v, want replay incomplete lacking content, err, name", ce)
	}
	tb := strings.Join(ce.Traceback, "\n")
	for _, want := range []string{"cell 2 of 4 skipped: it reads standard input (not restored: name)", "cell 3 of 4 failed: ", "(not restored: content, err)"} {
		if !strings.Contains(tb, want) {
			t.Errorf("%%replay traceback = %q, want %q", tb, want)
		}
	}
	if got, ce := exec(t, c, "b"); ce != nil || got != "2" {
		t.Errorf("b after %%replay = %q, %v, want 2", got, ce)
	}
	if _, ce := exec(t, c, "%replay"); ce != nil || !strings.Contains(out.take(), "Nothing to replay") {
		t.Errorf("second %%replay = %+v, want nothing left", ce)
	}
}

// TestReplayNamesTheCellThatDidNotSucceed: a cell that used a variable of
// a failed cell (whose effects up to the failure stay in the session)
// fails on replay; %replay names the variable and the cell it came from.
func TestReplayNamesTheCellThatDidNotSucceed(t *testing.T) {
	c, _ := start(t)
	exec(t, c, "base := 1")
	if _, ce := exec(t, c, "k := 5\npanic(\"half way\")"); ce == nil {
		t.Fatal("the panicking cell succeeded")
	}
	if got, ce := exec(t, c, "m := k + base\nm"); ce != nil || got != "6" {
		t.Fatalf("m = %q, %v; want 6 (k survives its cell's panic)", got, ce)
	}
	exec(t, c, "import \"time\"\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)")
	_, ce := exec(t, c, "%replay")
	if ce == nil || !strings.Contains(ce.Value, "the session lacks k, m") {
		t.Fatalf("%%replay error = %+v, want the session lacking k, m", ce)
	}
	if tb := strings.Join(ce.Traceback, "\n"); !strings.Contains(tb, "(k came from cell 2, which did not succeed") {
		t.Errorf("%%replay traceback = %q, want k traced to cell 2", tb)
	}
	if got, ce := exec(t, c, "base"); ce != nil || got != "1" {
		t.Errorf("base after %%replay = %q, %v, want 1", got, ce)
	}
}
