package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
)

// ErrCorrupt is wrapped by errors about a data file that exists but cannot
// be parsed, is truncated or fails its checksum.
var ErrCorrupt = errors.New("data: corrupt file")

// FileError reports a data file that could not be found or read. Missing
// files unwrap to fs.ErrNotExist (and to the download's error, if one was
// tried); unreadable ones to ErrCorrupt or the I/O error.
type FileError struct {
	// Name is the file's base name, such as "ind.cora.x".
	Name string
	// Path is where the file was read, empty when it was not found.
	Path string
	// Looked lists the directories searched, in order.
	Looked []string
	// URL is the download source tried, if any.
	URL string
	// Err is the cause.
	Err error
}

func (e *FileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "data: %s", e.Name)
	if e.Path != "" {
		fmt.Fprintf(&b, " (%s)", e.Path)
	} else if len(e.Looked) > 0 {
		fmt.Fprintf(&b, ": not found in %s", strings.Join(e.Looked, ", "))
	}
	if e.URL != "" {
		fmt.Fprintf(&b, "; download from %s", e.URL)
	}
	// The cause may carry this package's prefix too; say it once.
	fmt.Fprintf(&b, ": %s", strings.TrimPrefix(e.Err.Error(), "data: "))
	if e.Path == "" {
		b.WriteString(" (set GNNLAB_DATA to a folder holding the file)")
	}
	return b.String()
}

// Unwrap returns the cause, and fs.ErrNotExist for a file not found.
func (e *FileError) Unwrap() []error {
	if e.Path == "" && !errors.Is(e.Err, fs.ErrNotExist) {
		return []error{fs.ErrNotExist, e.Err}
	}
	return []error{e.Err}
}

// CacheDir returns the directory where downloads go: $GNNLAB_CACHE, or
// gnnlab under the user's cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("GNNLAB_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("data: no cache directory (set GNNLAB_CACHE): %w", err)
	}
	return filepath.Join(d, "gnnlab"), nil
}

// source describes where one data file may be: folders under $GNNLAB_DATA,
// a folder under the cache, and a download URL with its expected sha256.
type source struct {
	name    string
	subdirs []string // under $GNNLAB_DATA
	cache   string   // under CacheDir()
	url     string
	sha256  string // hex; empty when unknown
}

// searchDirs lists the directories to look in, in order.
func (s source) searchDirs() (dirs []string, cache string) {
	if root := os.Getenv("GNNLAB_DATA"); root != "" {
		for _, sub := range s.subdirs {
			dirs = append(dirs, filepath.Join(root, sub))
		}
	}
	if c, err := CacheDir(); err == nil {
		cache = filepath.Join(c, s.cache)
		dirs = append(dirs, cache)
	}
	return dirs, cache
}

// open finds the file, downloading it into the cache when it is nowhere
// and downloads are allowed (GNNLAB_OFFLINE unset). The caller closes it.
func (s source) open() (*os.File, error) {
	dirs, cache := s.searchDirs()
	for _, d := range dirs {
		p := filepath.Join(d, s.name)
		f, err := os.Open(p)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, &FileError{Name: s.name, Path: p, Err: err}
		}
	}
	fe := &FileError{Name: s.name, Looked: dirs, Err: fs.ErrNotExist}
	if s.url == "" || cache == "" || os.Getenv("GNNLAB_OFFLINE") != "" {
		return nil, fe
	}
	fe.URL = s.url
	p := filepath.Join(cache, s.name)
	if err := download(p, s.url, s.sha256); err != nil {
		fe.Err = err
		return nil, fe
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, &FileError{Name: s.name, Path: p, Err: err}
	}
	return f, nil
}

// download fetches url into path through a temporary file, so a broken
// transfer never leaves a partial file where the loader would find it, and
// checks the sha256 when one is known.
func download(path, url, sum string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// The session's interrupt (gnnlib/interrupt) cancels the request, and
	// the download returns an *interrupt.Error.
	ctx := interrupt.Context()
	stopped := func(err error) error {
		if ctx.Err() != nil {
			return &interrupt.Error{Op: "data: download " + url}
		}
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		return stopped(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("http status %s", resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), resp.Body); err != nil {
		tmp.Close()
		return stopped(err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); sum != "" && got != sum {
		return fmt.Errorf("sha256 %s, want %s: %w", got, sum, ErrCorrupt)
	}
	return os.Rename(tmp.Name(), path)
}

// Known sha256 sums of the canonical files, checked after a download.
var knownSHA256 = map[string]string{
	"ind.cora.allx":             "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
	"ind.cora.ally":             "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
	"ind.cora.graph":            "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
	"ind.cora.test.index":       "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
	"ind.cora.tx":               "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
	"ind.cora.ty":               "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
	"ind.cora.x":                "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
	"ind.cora.y":                "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
	"t10k-images-idx3-ubyte.gz": "ba05d2d6e06f59dd97d2d5378250478bb5c9b64296a5c2681700569121e3a2d7",
	"t10k-labels-idx1-ubyte.gz": "94088eab8a64f51a9b34cc9716f54b6548ef8b2fd16ada6d1575091b933dbf4b",
}
