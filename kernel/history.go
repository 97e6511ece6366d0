package kernel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"
)

// maxEntryText bounds the input and the output of a history entry in the
// file; the longer ones are cut with truncatedMarker. maxLine bounds a
// line the loader reads: longer lines (from older versions, or a damaged
// file) are skipped, and the lines after them still load.
const (
	maxEntryText    = 1 << 20
	maxLine         = 16 << 20
	truncatedMarker = "\n… [history: truncated, %d bytes in all]"
)

// truncateEntry cuts s to maxEntryText bytes, at a character boundary,
// and says so.
func truncateEntry(s string) string {
	if len(s) <= maxEntryText {
		return s
	}
	cut := maxEntryText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(truncatedMarker, len(s))
}

// load reads the entries of r, one JSON object a line.
func (h *history) load(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for n := 1; ; n++ {
		line = line[:0]
		skip := false
		var err error
		for {
			var part []byte
			part, err = br.ReadSlice('\n')
			if !skip {
				line = append(line, part...)
				if len(line) > maxLine {
					skip, line = true, line[:0]
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		switch {
		case skip:
			h.log.Printf("history: line %d is over %d bytes: skipped", n, maxLine)
		case len(bytes.TrimSpace(line)) > 0:
			var e historyEntry
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				h.log.Printf("history: line %d: %v: skipped", n, jerr)
			} else {
				h.entries = append(h.entries, e)
				h.session = max(h.session, e.Session)
			}
		}
		if err != nil {
			if err != io.EOF {
				h.log.Printf("history: %v", err)
			}
			return
		}
	}
}

// HistoryFile returns where the history is kept: $GNNLAB_HISTORY (a file,
// or a directory that gets history.jsonl), else
// $XDG_DATA_HOME/gnnlab/history.jsonl, else
// ~/.local/share/gnnlab/history.jsonl.
func HistoryFile() string {
	if p := os.Getenv("GNNLAB_HISTORY"); p != "" {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return filepath.Join(p, "history.jsonl")
		}
		return p
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "gnnlab", "history.jsonl")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "share", "gnnlab", "history.jsonl")
}

// historyEntry is one line of the history file.
type historyEntry struct {
	Session int    `json:"session"`
	Line    int    `json:"line"`
	Input   string `json:"input"`
	Output  string `json:"output,omitempty"`
}

// history is the input history of all kernel sessions: the file holds one
// JSON entry per line, and each kernel start is a new session number.
type history struct {
	mu      sync.Mutex
	log     *log.Logger
	f       *os.File // nil: memory only
	session int
	entries []historyEntry
}

// openHistory loads path and opens it for appending. Without a usable
// file the history lives in memory only.
func openHistory(path string, l *log.Logger) *history {
	h := &history{log: l}
	if path == "" {
		h.session = 1
		return h
	}
	if f, err := os.Open(path); err == nil {
		h.load(f)
		f.Close()
	}
	h.session++
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		l.Printf("history: %v (keeping it in memory)", err)
		return h
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		l.Printf("history: %v (keeping it in memory)", err)
		return h
	}
	h.f = f
	return h
}

func (h *history) add(line int, input, output string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := historyEntry{Session: h.session, Line: line, Input: input, Output: output}
	h.entries = append(h.entries, e)
	if h.f == nil {
		return
	}
	e.Input, e.Output = truncateEntry(e.Input), truncateEntry(e.Output)
	b, err := json.Marshal(e)
	if err == nil {
		_, err = h.f.Write(append(b, '\n'))
	}
	if err != nil {
		h.log.Printf("history: %v", err)
	}
}

func (h *history) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f != nil {
		h.f.Close()
		h.f = nil
	}
}

// historyRequest is the content of a history_request.
type historyRequest struct {
	Output         bool   `json:"output"`
	Raw            bool   `json:"raw"`
	HistAccessType string `json:"hist_access_type"`
	Session        int    `json:"session"`
	Start          int    `json:"start"`
	Stop           int    `json:"stop"`
	N              *int   `json:"n"`
	Pattern        string `json:"pattern"`
	Unique         bool   `json:"unique"`
}

// query answers a history request: a list of [session, line, input], or
// [session, line, [input, output]] with output set (output is null when
// the cell showed no result). Raw and transformed input are the same here.
func (h *history) query(c historyRequest) []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var sel []historyEntry
	switch c.HistAccessType {
	case "tail":
		n := len(h.entries)
		if c.N != nil {
			n = min(max(*c.N, 0), n)
		}
		sel = h.entries[len(h.entries)-n:]
	case "range":
		session := c.Session
		if session <= 0 {
			session += h.session // 0 is this session, -1 the one before
		}
		for _, e := range h.entries {
			if e.Session == session && e.Line >= c.Start && (c.Stop <= 0 || e.Line < c.Stop) {
				sel = append(sel, e)
			}
		}
	case "search":
		seen := map[string]bool{}
		// Walk backwards so that unique keeps the latest of equal inputs
		// and n the latest matches, then restore the order.
		for i := len(h.entries) - 1; i >= 0; i-- {
			e := h.entries[i]
			if !globMatch(c.Pattern, e.Input) || (c.Unique && seen[e.Input]) {
				continue
			}
			seen[e.Input] = true
			sel = append(sel, e)
			if c.N != nil && *c.N > 0 && len(sel) == *c.N {
				break
			}
		}
		for i, j := 0, len(sel)-1; i < j; i, j = i+1, j-1 {
			sel[i], sel[j] = sel[j], sel[i]
		}
	}
	out := make([]any, 0, len(sel))
	for _, e := range sel {
		if c.Output {
			var o any
			if e.Output != "" {
				o = e.Output
			}
			out = append(out, []any{e.Session, e.Line, []any{e.Input, o}})
		} else {
			out = append(out, []any{e.Session, e.Line, e.Input})
		}
	}
	return out
}

// globMatch matches s against a glob pattern with * and ? over whole
// strings, newlines included, as IPython's history search does.
func globMatch(pattern, s string) bool {
	p, t := []rune(pattern), []rune(s)
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == t[ti]):
			pi++
			ti++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ti
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
