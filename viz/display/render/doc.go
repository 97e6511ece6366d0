// Package render draws the values that show themselves in a notebook
// without boilerplate: images, gonum plots, tensors, gnnlib's reports,
// slices of structs and maps. Importing it registers Convert with display.RegisterConverter; the
// session (package interp) imports it, so a cell's trailing expression and
// display.Value use it.
//
// # What renders how
//
//   - image.Image: PNG, text "<image WxH>".
//   - *plot.Plot (gonum/plot): PNG at the house figure size (viz.Figure).
//   - *tensor.Tensor: text with shape, dtype and the tensor's preview;
//     HTML with the same header and a table of the values (a 2-D slice
//     for tensors of three axes or more), long axes elided.
//   - slices and arrays of structs (or pointers to structs): an HTML
//     table with a column per exported field and a row per element.
//   - maps: an HTML table of keys (sorted) and values; struct values get
//     a column per field.
//   - *quant.Report (gnnlib/quant): an HTML table of the variants, the
//     report's text table as text/plain.
//   - *nn.ModelSummary (gnnlib/nn): an HTML table of the layers, their
//     output and parameter shapes and counts, with the total; the
//     summary's text table as text/plain.
//
// Tables stop after MaxRows rows and say how many were left out; the
// text/plain form stays fmt's %v, which the session provides.
//
// BUG(render): Fields of unexported (lower-case) names of interpreted
// struct types are left out of tables, like those of compiled types.
package render
