package display

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"sync"
)

// JPEG returns a bundle showing a JPEG image, described by text, at width
// × height CSS pixels (0 keeps the image's own size).
func JPEG(jpeg []byte, text string, width, height int) Bundle {
	meta := map[string]any{}
	if width > 0 && height > 0 {
		meta["image/jpeg"] = map[string]any{"width": width, "height": height}
	}
	return Bundle{
		Data:     map[string]any{"image/jpeg": base64.StdEncoding.EncodeToString(jpeg), "text/plain": text},
		Metadata: meta,
	}
}

// Image returns a bundle showing img as a PNG.
func Image(img image.Image) (Bundle, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Bundle{}, fmt.Errorf("display: encode png: %w", err)
	}
	r := img.Bounds()
	return PNG(buf.Bytes(), fmt.Sprintf("<image %dx%d>", r.Dx(), r.Dy()), 0, 0), nil
}

// JSON returns a bundle showing v as application/json (a collapsible tree
// in JupyterLab) with its indented text as text/plain. v must marshal to
// JSON.
func JSON(v any) (Bundle, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return Bundle{}, fmt.Errorf("display: json: %w", err)
	}
	// The wire carries the decoded value, so that the frontend gets an
	// object rather than a string holding JSON.
	var data any
	if err := json.Unmarshal(raw, &data); err != nil {
		return Bundle{}, fmt.Errorf("display: json: %w", err)
	}
	var text bytes.Buffer
	_ = json.Indent(&text, raw, "", "  ")
	return Bundle{Data: map[string]any{"application/json": data, "text/plain": text.String()}, Metadata: map[string]any{}}, nil
}

// HTMLBundle returns a bundle of an HTML fragment, with text as its
// text/plain form (the HTML itself when text is empty).
func HTMLBundle(html, text string) Bundle {
	if text == "" {
		text = html
	}
	return Bundle{Data: map[string]any{"text/html": html, "text/plain": text}, Metadata: map[string]any{}}
}

// MarkdownBundle returns a bundle of Markdown text.
func MarkdownBundle(md string) Bundle {
	return Bundle{Data: map[string]any{"text/markdown": md, "text/plain": md}, Metadata: map[string]any{}}
}

// LaTeXBundle returns a bundle of a LaTeX fragment, e.g. "$$x^2$$".
func LaTeXBundle(tex string) Bundle {
	return Bundle{Data: map[string]any{"text/latex": tex, "text/plain": tex}, Metadata: map[string]any{}}
}

// A Converter renders the values of the types it knows: ok is false for
// any other value. The session registers one for images, plots, tensors
// and tables (package render), so that viz/display itself stays small.
type Converter func(v any) (b Bundle, ok bool, err error)

var (
	convMu     sync.RWMutex
	converters []Converter
)

// RegisterConverter adds c to the converters that Rich tries, after the
// ones registered before it. Packages call it from init.
func RegisterConverter(c Converter) {
	convMu.Lock()
	converters = append(converters, c)
	convMu.Unlock()
}

// RenderError is a value whose rendering failed (a Render method or a
// converter panicked or returned an error).
type RenderError struct {
	Type string // the value's type, as %T prints it
	Err  error
}

func (e *RenderError) Error() string {
	return fmt.Sprintf("display: rendering %s failed: %v", e.Type, e.Err)
}

func (e *RenderError) Unwrap() error { return e.Err }

// Rich returns the rich bundle of v: v itself when it is a Bundle, its
// Render method's bundle when it is a Renderer, else the bundle of the
// first registered Converter that knows it. ok is false when none applies.
// A panic while rendering is returned as a *RenderError.
func Rich(v any) (b Bundle, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok, err = Bundle{}, false, &RenderError{Type: fmt.Sprintf("%T", v), Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	switch x := v.(type) {
	case Bundle:
		return withText(x), true, nil
	case *Bundle:
		if x != nil {
			return withText(*x), true, nil
		}
	case Renderer:
		return withText(x.Render()), true, nil
	}
	convMu.RLock()
	cs := converters
	convMu.RUnlock()
	for _, c := range cs {
		b, ok, err := c(v)
		if err != nil {
			return Bundle{}, false, &RenderError{Type: fmt.Sprintf("%T", v), Err: err}
		}
		if ok {
			return withText(b), true, nil
		}
	}
	return Bundle{}, false, nil
}

// withText fills in the maps and text/plain of b.
func withText(b Bundle) Bundle {
	if b.Data == nil {
		b.Data = map[string]any{}
	}
	if b.Metadata == nil {
		b.Metadata = map[string]any{}
	}
	if _, ok := b.Data["text/plain"]; !ok {
		b.Data["text/plain"] = b.Text()
	}
	return b
}

// Render returns the bundle that shows v: its rich bundle (see Rich) or
// else its text as fmt's %v. The error reports a failed rich rendering;
// the bundle is then the text form.
func Render(v any) (Bundle, error) {
	b, ok, err := Rich(v)
	if ok {
		return b, nil
	}
	return Bundle{Data: map[string]any{"text/plain": fmt.Sprintf("%v", v)}, Metadata: map[string]any{}}, err
}

// Value shows v (see Render). A rendering error is written to standard
// error, and the text form shown instead.
func Value(v any) {
	b, err := Render(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	Show(b)
}

// Handle is a display that can be replaced in place: Show adds it to the
// output, Update redraws it where it stands. Its methods are safe for
// concurrent use.
type Handle struct {
	id string
}

// NewHandle returns a handle with a fresh display id.
func NewHandle() *Handle {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Handle{id: "gnnlab-" + hex.EncodeToString(b[:])}
}

// ID returns the handle's display id.
func (h *Handle) ID() string { return h.id }

// Show displays v (see Render) under the handle's id. Showing it again
// adds a second copy, which later updates redraw too (as in Jupyter).
func (h *Handle) Show(v any) {
	Show(h.bundle(v))
}

// Update replaces every output shown under the handle's id by v.
func (h *Handle) Update(v any) {
	Update(h.bundle(v))
}

func (h *Handle) bundle(v any) Bundle {
	b, err := Render(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	b.DisplayID = h.id
	return b
}
