package display_test

import (
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"strings"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/viz/display"
)

// recorder is a Publisher that keeps what it was sent.
type recorder struct {
	mu      sync.Mutex
	shown   []display.Bundle
	updates []bool
	clears  []bool
}

func (r *recorder) Display(b display.Bundle, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = append(r.shown, b)
	r.updates = append(r.updates, update)
}

func (r *recorder) ClearOutput(wait bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clears = append(r.clears, wait)
}

func withRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	display.SetPublisher(r)
	t.Cleanup(func() { display.SetPublisher(nil) })
	return r
}

type card struct{ title string }

func (c card) Render() display.Bundle {
	return display.Bundle{Data: map[string]any{"text/html": "<b>" + c.title + "</b>"}}
}

type broken struct{}

func (broken) Render() display.Bundle { panic("no ink") }

func TestRich(t *testing.T) {
	tests := []struct {
		name     string
		v        any
		ok       bool
		mime     string
		wantText string
	}{
		{"bundle", display.HTMLBundle("<i>x</i>", "x"), true, "text/html", "x"},
		{"renderer", card{"hi"}, true, "text/html", "<text/html>"},
		{"markdown", display.MarkdownBundle("# t"), true, "text/markdown", "# t"},
		{"latex", display.LaTeXBundle("$$x$$"), true, "text/latex", "$$x$$"},
		{"plain int", 42, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok, err := display.Rich(tt.v)
			if err != nil || ok != tt.ok {
				t.Fatalf("Rich(%v) = _, %v, %v, want %v, nil", tt.v, ok, err, tt.ok)
			}
			if !ok {
				return
			}
			if _, has := b.Data[tt.mime]; !has {
				t.Errorf("Rich(%v) has no %s: %v", tt.v, tt.mime, b.Data)
			}
			if got := b.Text(); got != tt.wantText {
				t.Errorf("Rich(%v).Text() = %q, want %q", tt.v, got, tt.wantText)
			}
		})
	}
}

func TestRenderError(t *testing.T) {
	b, err := display.Render(broken{})
	var re *display.RenderError
	if !errors.As(err, &re) {
		t.Fatalf("Render(broken) error = %v, want *RenderError", err)
	}
	if !strings.Contains(re.Error(), "no ink") {
		t.Errorf("RenderError = %q, want the panic value in it", re.Error())
	}
	if got := b.Text(); got != "{}" {
		t.Errorf("Render(broken) text = %q, want the %%v fallback %q", got, "{}")
	}
}

func TestConverter(t *testing.T) {
	type celsius float64
	display.RegisterConverter(func(v any) (display.Bundle, bool, error) {
		c, ok := v.(celsius)
		if !ok {
			return display.Bundle{}, false, nil
		}
		if c < -273.15 {
			return display.Bundle{}, false, errors.New("below absolute zero")
		}
		return display.HTMLBundle("<span>warm</span>", "warm"), true, nil
	})
	if b, err := display.Render(celsius(20)); err != nil || b.Text() != "warm" {
		t.Errorf("Render(celsius(20)) = %q, %v, want %q, nil", b.Text(), err, "warm")
	}
	if _, err := display.Render(celsius(-300)); err == nil {
		t.Errorf("Render(celsius(-300)) error = nil, want the converter's error")
	}
}

func TestHandle(t *testing.T) {
	r := withRecorder(t)
	h := display.NewHandle()
	h.Show(display.HTMLBundle("<p>1</p>", "1"))
	h.Update("two")
	display.Clear(true)
	if len(r.shown) != 2 {
		t.Fatalf("published %d bundles, want 2", len(r.shown))
	}
	for k, b := range r.shown {
		if b.DisplayID != h.ID() || h.ID() == "" {
			t.Errorf("bundle %d DisplayID = %q, want %q", k, b.DisplayID, h.ID())
		}
	}
	if r.updates[0] || !r.updates[1] {
		t.Errorf("updates = %v, want [false true]", r.updates)
	}
	if r.shown[1].Text() != "two" {
		t.Errorf("updated text = %q, want %q", r.shown[1].Text(), "two")
	}
	if len(r.clears) != 1 || !r.clears[0] {
		t.Errorf("clears = %v, want [true]", r.clears)
	}
	if other := display.NewHandle(); other.ID() == h.ID() {
		t.Errorf("two handles share the id %q", h.ID())
	}
}

func TestValueReportsRenderError(t *testing.T) {
	r := withRecorder(t)
	display.Value(broken{})
	if len(r.shown) != 1 || r.shown[0].Text() != "{}" {
		t.Fatalf("Value(broken) published %v, want the text fallback", r.shown)
	}
}

func TestImageAndJSON(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	b, err := display.Image(img)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(b.Data["image/png"].(string))
	if err != nil || !strings.HasPrefix(string(raw), "\x89PNG") {
		t.Errorf("Image(...) image/png is not base64 PNG: %v", err)
	}
	if b.Text() != "<image 3x2>" {
		t.Errorf("Image(...).Text() = %q, want %q", b.Text(), "<image 3x2>")
	}
	j, err := display.JSON(map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := j.Data["application/json"].(map[string]any); !ok || m["a"] != 1.0 {
		t.Errorf("JSON(...) application/json = %#v, want map a:1", j.Data["application/json"])
	}
	if _, err := display.JSON(func() {}); err == nil {
		t.Errorf("JSON(func) error = nil, want an error")
	}
	jp := display.JPEG([]byte{0xff, 0xd8}, "photo", 10, 5)
	if jp.Data["image/jpeg"] != "/9g=" || jp.Metadata["image/jpeg"] == nil {
		t.Errorf("JPEG(...) = %v, want base64 data and size metadata", jp)
	}
}
