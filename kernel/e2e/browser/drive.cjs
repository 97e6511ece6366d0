// drive.cjs drives JupyterLab in headless Chromium through playwright-core
// for browser_test.go: it opens the notebook that the test prepared (gnnlab
// kernel), runs cells and checks what the page shows. It prints one line
// per check and exits non-zero at the first failure. lab.cjs has the
// helpers and the environment it reads.
'use strict';
const { step, main, openNotebook, cellCount, runCell, waitIdle } = require('./lab.cjs');

main(async (page, out) => {
  await openNotebook(page);
  step('notebook open with the gnnlab kernel');

  let cell = await runCell(page, 'import "fmt"\nfmt.Println("hello from gnnlab")');
  await cell.locator('.jp-OutputArea-output', { hasText: 'hello from gnnlab' }).waitFor();
  await waitIdle(cell);
  step('a cell that prints shows its text');

  cell = await runCell(page, 'import (\n"github.com/gnnlab/gnnlab/viz"\n"github.com/gnnlab/gnnlab/viz/display"\n)\ndisplay.HTML("<b id=\\"gnnlab-html\\">bold from Go</b>")\nfig, _ := viz.Speedup([]float64{1, 2, 4, 8}, []float64{1, 1.8, 3.1, 4.9})\nfig');
  await cell.locator('#gnnlab-html', { hasText: 'bold from Go' }).waitFor();
  const img = cell.locator('.jp-OutputArea-output img');
  await img.waitFor();
  const src = await img.getAttribute('src');
  if (!src || !src.startsWith('data:image/png;base64,')) throw new Error(`plot <img> src = ${src && src.slice(0, 40)}, want a PNG data URI`);
  await waitIdle(cell);
  await cell.screenshot({ path: `${out}/plot-cell.png` });
  await page.screenshot({ path: `${out}/notebook-plot.png` });
  step('HTML output and a plot as an <img> holding a PNG');

  cell = await runCell(page, 'y := undefinedThing + 1');
  await cell.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]', { hasText: 'undefined: undefinedThing' }).waitFor();
  await waitIdle(cell);
  await page.screenshot({ path: `${out}/error.png` });
  step('a failing cell shows the error box');

  cell = await runCell(page, 'n := 0\nfor {\n\tn++\n}');
  await cell.locator('.jp-InputPrompt', { hasText: '[*]' }).waitFor();
  await page.waitForTimeout(1000);
  await page.keyboard.press('Escape');
  await page.keyboard.press('i');
  await page.keyboard.press('i');
  await cell.locator('.jp-OutputArea-output', { hasText: 'interrupted' }).waitFor();
  await waitIdle(cell);
  cell = await runCell(page, 'n > 0');
  await cell.locator('.jp-OutputArea-output', { hasText: 'true' }).waitFor();
  step('an endless loop is interrupted and the kernel is idle again, state kept');

  cell = await runCell(page, 'import "strings"');
  await waitIdle(cell);
  const cells = page.locator('.jp-Notebook .jp-Cell');
  const last = cells.nth((await cellCount(page)) - 1);
  await last.locator('.cm-content').click();
  await page.keyboard.insertText('strings.');
  await page.keyboard.press('Tab');
  await page.locator('.jp-Completer', { hasText: 'ToUpper' }).waitFor();
  await page.screenshot({ path: `${out}/completion.png` });
  await page.keyboard.press('Escape');
  step('Tab after strings. lists its members');

  await page.keyboard.insertText('ToUpper(');
  await page.keyboard.press('Shift+Tab');
  await page.locator('.jp-Tooltip', { hasText: 'func ToUpper' }).waitFor();
  await page.screenshot({ path: `${out}/tooltip.png` });
  step('Shift+Tab shows the signature and doc');
});
