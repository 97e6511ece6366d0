// widgets.cjs drives viz/widgets in JupyterLab (jupyterlab_widgets, the
// ipywidgets 8 front end) for browser_test.go: a cell shows an IntSlider
// through widgets.Interact, the script moves the slider with the keyboard
// and with its readout, and reads the Go callback's output in the page; a
// Button's click prints into an Output. lab.cjs has the helpers and the
// environment it reads.
'use strict';
const { step, main, openNotebook, runCell, waitIdle } = require('./lab.cjs');

main(async (page, out) => {
  await openNotebook(page);

  let cell = await runCell(page, [
    'import (', '\t"fmt"', '\t"github.com/gnnlab/gnnlab/viz/widgets"', ')',
    'lr := widgets.NewIntSlider("lr", 1, 100, 10)',
    'widgets.Interact(func() { fmt.Println("callback saw lr =", lr.Value()) }, lr)',
  ].join('\n'));
  const interact = cell;
  const slider = cell.locator('.widget-slider');
  await slider.waitFor();
  await waitIdle(cell);
  step('slider shown by the widget front end');
  const area = cell.locator('.widget-output');
  await area.locator('.jp-OutputArea-output', { hasText: 'callback saw lr = 10' }).waitFor();
  step('callback output of the first run in the Output widget');

  // The keyboard moves a noUiSlider handle by one step.
  await slider.locator('.noUi-handle').focus();
  await page.keyboard.press('ArrowRight');
  await area.locator('.jp-OutputArea-output', { hasText: 'callback saw lr = 11' }).waitFor();
  // Interact clears the area before each run: the old line is gone.
  if (await area.getByText('callback saw lr = 10').count() !== 0) throw new Error('the output of the earlier run was not cleared');
  step('slider moved with the keyboard: the Go callback printed lr = 11');

  const readout = slider.locator('.widget-readout');
  await readout.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText('42');
  await page.keyboard.press('Enter');
  await area.locator('.jp-OutputArea-output', { hasText: 'callback saw lr = 42' }).waitFor();
  await cell.screenshot({ path: `${out}/widgets-slider.png` });
  step('slider moved through its readout: the Go callback printed lr = 42');

  cell = await runCell(page, 'lr.Value()');
  await cell.locator('.jp-OutputArea-output', { hasText: '42' }).waitFor();
  step('the session holds the value the page set: lr.Value() is 42');

  cell = await runCell(page, [
    'out := widgets.NewOutput()',
    'b := widgets.NewButton("train")',
    'b.OnClick(func() { out.Capture(func() { fmt.Println("button clicked in Go") }) })',
    'widgets.VBox(b, out)',
  ].join('\n'));
  const button = cell.locator('button.widget-button', { hasText: 'train' });
  await button.waitFor();
  await waitIdle(cell);
  await button.click();
  await cell.locator('.widget-output .jp-OutputArea-output', { hasText: 'button clicked in Go' }).waitFor();
  await page.screenshot({ path: `${out}/widgets.png` });
  step('button click ran the Go callback, which printed into an Output');

  // A plot that a slider redraws, as a teaching cell does with a
  // training curve.
  cell = await runCell(page, [
    'import (', '\t"github.com/gnnlab/gnnlab/viz"', '\t"github.com/gnnlab/gnnlab/viz/display"', ')',
    'top := widgets.NewIntSlider("speedup at 8", 4, 8, 5)',
    'widgets.Interact(func() {',
    '\tfig, err := viz.Speedup([]float64{1, 2, 4, 8}, []float64{1, 1.8, 3.1, float64(top.Value())})',
    '\tif err != nil {', '\t\tfmt.Println(err)', '\t\treturn', '\t}',
    '\tdisplay.Value(fig)',
    '}, top)',
  ].join('\n'));
  const plot = cell.locator('.widget-output img');
  await plot.waitFor();
  await waitIdle(cell);
  const before = await plot.getAttribute('src');
  await cell.locator('.widget-slider .noUi-handle').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([el, old]) => el && el.getAttribute('src') !== old,
    [await plot.elementHandle(), before]).catch(async () => {
    // The old <img> may be replaced by a new one: look again.
    const now = await cell.locator('.widget-output img').first().getAttribute('src');
    if (now === before) throw new Error('the plot was not redrawn after the slider moved');
  });
  if (await cell.locator('.widget-output img').count() !== 1) throw new Error('the Output holds more than one plot');
  await cell.screenshot({ path: `${out}/widgets-plot.png` });
  step('plot redrawn in the Output after the slider moved');

  // The first slider moved while a cell runs (a training loop of up to
  // 30 s that stops when lr reaches 99 or more): the Go callback's output shows in
  // the Interact's Output widget, not under the running cell. The time
  // from the key press to the output in the page is printed, not checked.
  cell = await runCell(page, [
    'import "time"',
    'fmt.Println("training")',
    'for deadline := time.Now().Add(30 * time.Second); lr.Value() < 99 && time.Now().Before(deadline); {',
    '\ttime.Sleep(10 * time.Millisecond)',
    '}',
    'fmt.Println("stopped at", lr.Value())',
  ].join('\n'));
  const running = cell;
  await running.locator('.jp-OutputArea-output', { hasText: 'training' }).waitFor();
  const handle = interact.locator('.widget-slider .noUi-handle');
  await handle.focus();
  // Timed in the page: from the keydown to the mutation that adds the
  // output, so that the driver's own round trips do not count.
  // The front end may re-create the output nodes: watch the whole page.
  await page.evaluate(() => { window.gnnlabSeen = new Promise((resolve, reject) => {
    let down = 0;
    document.addEventListener('keydown', () => { down = performance.now(); }, { once: true, capture: true });
    const obs = new MutationObserver(() => {
      const hit = [...document.querySelectorAll('.widget-output')].some((o) => o.textContent.includes('callback saw lr = 43'));
      if (down && hit) {
        obs.disconnect();
        resolve(performance.now() - down);
      }
    });
    obs.observe(document.body, { childList: true, subtree: true, characterData: true });
    setTimeout(() => { obs.disconnect(); reject(new Error('no callback output within 30 s of the key press')); }, 30000);
  }); });
  await page.keyboard.press('ArrowRight');
  await area.locator('.jp-OutputArea-output', { hasText: 'callback saw lr = 43' }).waitFor();
  const ms = Math.round(await page.evaluate(() => window.gnnlabSeen));
  if (await running.locator('.jp-InputPrompt', { hasText: '[*]' }).count() !== 1) throw new Error('the training cell was no longer running when the callback output came');
  if (await running.getByText('callback saw lr').count() !== 0) throw new Error("the callback's output went to the running cell");
  step(`slider moved during a running cell: the callback's output in its Output widget ${ms} ms after the key press`);
  // End moves the handle to the maximum, 100.
  await interact.locator('.widget-slider .noUi-handle').focus();
  await page.keyboard.press('End');
  await running.locator('.jp-OutputArea-output', { hasText: 'stopped at 100' }).waitFor({ timeout: 20000 });
  await waitIdle(running);
  step('the running cell saw the slider moved to 100 and stopped');
});
