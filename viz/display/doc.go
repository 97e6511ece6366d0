// Package display lets cell code and compiled packages show rich output
// (HTML, Markdown, LaTeX, images, JSON, tables) in the frontend that runs
// the session: JupyterLab, the terminal REPL or the headless notebook
// runner.
//
// # Bundles
//
// A Bundle maps MIME types to data, as Jupyter's display_data does. The
// constructors PNG, JPEG, SVG, JSON, Image, HTMLBundle, MarkdownBundle
// and LaTeXBundle build one; Show displays it. HTML, Markdown and LaTeX
// build and show in one call. Every bundle should carry "text/plain",
// which terminals print.
//
// # Values
//
// Value shows any value: a Bundle as it is, a Renderer (compiled or
// interpreted type) through its Render method, and the types a registered
// Converter knows (the session registers package render, which draws
// image.Image, gonum plots, tensors, slices of structs and maps); anything
// else as fmt's %v. A cell's trailing expression renders the same way.
// Rendering errors are never swallowed: Value writes them to standard
// error and shows the text form instead.
//
// # Updating in place
//
// A Handle is a display with an id: Show puts it in the output, Update
// replaces it where it stands (Jupyter's update_display_data), so a
// training curve or a progress bar redraws without adding output. Clear
// clears the cell's output; with wait, when the next output arrives.
//
// # Hosts
//
// A host (the gnnlab worker, the REPL, the notebook runner) installs a
// Publisher with SetPublisher; without one, output falls back to the
// text/plain representation printed on standard output.
package display
