package kernel

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryLoadSkipsLongLines loads a file whose second line is over
// the line limit, as older versions wrote for a cell over 16 MiB: the
// entries after it must load (issue 20, 7: the loader stopped there).
func TestHistoryLoadSkipsLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	long := fmt.Sprintf(`{"session":1,"line":2,"input":"%s"}`, strings.Repeat("x", maxLine+10))
	file := strings.Join([]string{`{"session":1,"line":1,"input":"a"}`, long, "", `not json`, `{"session":2,"line":1,"input":"b"}`}, "\n") + "\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHistory(path, log.New(io.Discard, "", 0))
	defer h.close()
	var got []string
	for _, e := range h.entries {
		got = append(got, fmt.Sprintf("%d/%d %s", e.Session, e.Line, e.Input))
	}
	if fmt.Sprint(got) != "[1/1 a 2/1 b]" || h.session != 3 {
		t.Errorf("loaded %v, session %d; want [1/1 a 2/1 b], session 3", got, h.session)
	}
}

// TestHistoryTruncatesLongEntries adds entries over maxEntryText: the file
// keeps them cut with the marker, and a reload sees every entry.
func TestHistoryTruncatesLongEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	quiet := log.New(io.Discard, "", 0)
	h := openHistory(path, quiet)
	big := strings.Repeat("é", 9<<20) // 18 MiB, two bytes a character
	h.add(1, big, "")
	h.add(2, "small", big)
	h.add(3, "after", "")
	h.close()
	h = openHistory(path, quiet)
	defer h.close()
	if len(h.entries) != 3 {
		t.Fatalf("reloaded %d entries, want 3", len(h.entries))
	}
	for _, s := range []string{h.entries[0].Input, h.entries[1].Output} {
		if len(s) > maxEntryText+100 || !strings.HasSuffix(s, fmt.Sprintf(truncatedMarker, len(big))) || !strings.HasPrefix(s, "éé") {
			t.Errorf("long text reloaded as %d bytes ending %q, want it cut with the marker", len(s), s[max(0, len(s)-60):])
		}
	}
	if h.entries[2].Input != "after" {
		t.Errorf("third entry = %q, want after", h.entries[2].Input)
	}
}
