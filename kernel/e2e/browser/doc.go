// Package browser tests gnnlab in JupyterLab the way a user sees it: in a
// real browser. browser_test.go builds gnnlab, installs its kernelspec into
// a temporary Jupyter path, starts JupyterLab from the project's venv on a
// free port with a token, and runs drive.cjs, which drives headless
// Chromium (Debian's chromium, through playwright-core from npm, never a
// downloaded browser): it opens a gnnlab notebook, runs a cell that
// prints, one that shows HTML and a plot, one that fails and an endless
// loop that it interrupts, and checks Tab completion and the Shift+Tab
// tooltip, asserting on the page's DOM and saving screenshots
// (TestJupyterLab). TestJupyterLabWidgets runs widgets.cjs on the same
// set-up with jupyterlab_widgets from the venv: it shows a viz/widgets
// IntSlider through widgets.Interact, moves it with the keyboard and
// through its readout, waits for the Go callback's output in the Output
// widget, clicks a Button whose callback prints into an Output, and moves
// a slider that redraws a plot in an Output (widgets-plot.png is the
// README's kernel/e2e/browser/widgets.png); then it moves the first slider
// while a cell of up to 30 s runs, prints the time from the key press to
// the callback's output in the Output widget (timed in the page, not
// asserted), checks that the output did not go under the running cell,
// and ends the cell by moving the slider to its maximum. TestJupyterLabDebugger runs
// debugger.cjs: it turns JupyterLab's debugger on, sets a breakpoint on
// line 2 of a cell in its gutter, runs the cell and reads the call stack
// and the variables panel, then presses Next and Continue. The scripts
// share lab.cjs.
//
// # Running
//
// The test runs only when GNNLAB_BROWSER_TEST=1 (make test-browser sets
// it), and fails when something it needs is missing: install/setup-browser.sh
// installs chromium and playwright-core, make venv the venv. Screenshots
// go to the test's temporary folder, or to $GNNLAB_BROWSER_ARTIFACTS when
// set (CI keeps them; notebook-plot.png is the README's screenshot).
package browser
