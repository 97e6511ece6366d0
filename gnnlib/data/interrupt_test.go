package data

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
)

// TestDownloadInterrupted raises gnnlib/interrupt while a download waits
// for the rest of a body that never comes: download returns an
// *interrupt.Error soon after (printed, not asserted) and leaves no file.
func TestDownloadInterrupted(t *testing.T) {
	defer interrupt.Clear()
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write(make([]byte, 1000))
		w.(http.Flusher).Flush()
		select {
		case <-quit:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(quit)
	var raised time.Time
	timer := time.AfterFunc(100*time.Millisecond, func() {
		raised = time.Now()
		interrupt.Raise()
	})
	defer timer.Stop()
	path := filepath.Join(t.TempDir(), "ind.cora.x")
	err := download(path, srv.URL, "")
	took := time.Since(raised)
	if !errors.Is(err, interrupt.ErrInterrupted) {
		t.Fatalf("download interrupted = %v, want an *interrupt.Error", err)
	}
	t.Logf("download returned %v after the interrupt: %v", took.Round(time.Microsecond), err)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted download left %s (%v)", path, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 0 {
		t.Errorf("the interrupted download left %d files in its folder", len(entries))
	}
}
