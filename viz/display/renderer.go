package display

// Renderer is implemented by values that know how to show themselves. When
// the last expression of a notebook cell has a value implementing Renderer,
// the session shows the bundle returned by Render instead of the value's
// text; include "text/plain" in it for terminals.
type Renderer interface {
	Render() Bundle
}
