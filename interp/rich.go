package interp

// The rich renderers of images, plots, tensors and tables register with
// display when imported; the session imports them here so that a cell's
// trailing expression and display.Value in cells use them.
import _ "github.com/gnnlab/gnnlab/viz/display/render"
