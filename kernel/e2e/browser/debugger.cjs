// debugger.cjs drives JupyterLab's debugger panel on a gnnlab cell for
// browser_test.go: it turns the debugger on with the notebook's bug
// button, sets a breakpoint on line 2 of a cell in its gutter, runs the
// cell, and reads the call stack (the cell's line) and the variables
// panel (a session variable of an earlier cell); Next goes to line 3 and
// Continue finishes the cell with its output. lab.cjs has the helpers and
// the environment it reads.
'use strict';
const { step, main, openNotebook, runCell, waitIdle } = require('./lab.cjs');

main(async (page, out) => {
  await openNotebook(page);

  let cell = await runCell(page, 'import "fmt"\ntotal := 40');
  await waitIdle(cell);

  // Shift+Enter added a cell below: the cell to debug goes there.
  const cells = page.locator('.jp-Notebook .jp-Cell');
  cell = cells.nth((await cells.count()) - 1);
  await cell.locator('.cm-content').click();
  await page.keyboard.insertText('x := total + 1\ny := x * 2\nfmt.Println("sum", x, y)');

  await page.locator('jp-button.jp-DebuggerBugButton[title="Enable Debugger"]').click();
  await page.locator('jp-button.jp-DebuggerBugButton[title="Disable Debugger"]').waitFor();
  // Between cells the panel lists the session's variables (inspectVariables).
  await page.locator('.jp-DebuggerVariables-body .jp-DebuggerVariables-name', { hasText: 'total' }).first().waitFor();
  step('debugger on: the variables panel lists the session variable total');

  // The breakpoint gutter's first element is a spacer: line 2 is the third.
  await cell.locator('.cm-breakpoint-gutter .cm-gutterElement').nth(2).click();
  await page.locator('.jp-DebuggerBreakpoints').getByText(/gnnlab-debug-.*\.go/).first().waitFor();
  step('breakpoint set in the gutter on line 2');

  await cell.locator('.cm-content').click();
  await page.keyboard.press('Shift+Enter');
  await page.locator('.jp-DebuggerCallstack-body', { hasText: /\.go:2/ }).waitFor();
  await page.getByText('Paused in Debugger').first().waitFor();
  const vars = page.locator('.jp-DebuggerVariables-body:not(.lm-mod-hidden)');
  await vars.getByText('total').first().waitFor();
  await vars.getByText('41').first().waitFor(); // x, set by line 1
  await page.screenshot({ path: `${out}/debugger.png` });
  step('the cell stopped at line 2: the call stack shows the cell line, the variables total and x');

  await page.locator('jp-button[title="Next (F10)"]').click();
  await page.locator('.jp-DebuggerCallstack-body', { hasText: /\.go:3/ }).waitFor();
  step('Next went to line 3');

  await page.locator('jp-button[title="Continue (F9)"]').click();
  await cell.locator('.jp-OutputArea-output', { hasText: 'sum 41 82' }).waitFor();
  await waitIdle(cell);
  step('Continue finished the cell with its output');
});
