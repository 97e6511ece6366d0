package display

import "encoding/base64"

// PNG returns a bundle showing a PNG image, described by text, at width ×
// height CSS pixels (0 keeps the image's own size): frontends scale it,
// so an image rendered at twice the size stays sharp on dense screens.
func PNG(png []byte, text string, width, height int) Bundle {
	meta := map[string]any{}
	if width > 0 && height > 0 {
		meta["image/png"] = map[string]any{"width": width, "height": height}
	}
	return Bundle{
		Data:     map[string]any{"image/png": base64.StdEncoding.EncodeToString(png), "text/plain": text},
		Metadata: meta,
	}
}

// SVG returns a bundle showing an SVG document, described by text.
func SVG(svg, text string) Bundle {
	return Bundle{Data: map[string]any{"image/svg+xml": svg, "text/plain": text}, Metadata: map[string]any{}}
}
