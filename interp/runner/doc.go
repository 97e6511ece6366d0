// Package runner reads and writes Jupyter notebooks (nbformat 4), runs
// them headless through a gnnlab worker (gnnlab run), injects parameters
// the way papermill does, and renders them as static HTML.
//
// # Running
//
// Run executes the code cells in order on a fresh session (the same
// engine and worker process as the kernel, package client) and replaces
// their outputs: stream text, display_data, execute_result and error, with
// execution counts from 1. update_display_data rewrites the outputs shown
// under the same display id, as nbclient does, and clear_output clears the
// cell's outputs (with wait, when the next output arrives). Progress goes
// to Options.Progress, one line a cell. Run stops at the first failing
// cell and returns a *CellError naming it (index and first line); the
// notebook keeps the outputs up to there, error included.
//
// # Parameters
//
// With Options.Params, a new code cell tagged "injected-parameters" is
// inserted after the cell tagged "parameters" (at the top when there is
// none), replacing an injected cell of an earlier run. Each parameter
// becomes a Go assignment: name = value when the parameters cell declares
// name (its type is kept), else name := value with the type inferred from
// the text: int, float64, bool, else string.
//
// # HTML
//
// WriteHTML renders a notebook as one self-contained HTML page: code with
// its execution count, outputs with images inline as base64 data URIs,
// HTML outputs as they are, Markdown cells through a small Markdown
// subset (headings, paragraphs, lists, code, emphasis, links). Math
// between $ (inline) or $$ (display) becomes MathML (MathML: the
// LaTeX subset that notebooks use), which browsers draw with no script
// and no network, the TeX kept as its annotation; a formula it cannot
// read stays as TeX.
//
// BUG(runner): Text that a cell prints right after clear_output can
// reach the runner before the clear itself (output and events travel on
// different pipes), and then be cleared with the old output.
//
// BUG(runner): The Markdown renderer knows a subset of CommonMark:
// tables, nested lists and HTML blocks show as text.
package runner
