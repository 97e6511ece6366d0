// lab.cjs holds what the browser test's playwright scripts share: the
// headless Chromium they launch, opening the notebook, running a cell.
//
// Environment: LAB_URL (with the token), NOTEBOOK (path in the server),
// CHROMIUM (executable), OUT (screenshots), PROFILE (fresh user data dir).
'use strict';
const { chromium } = require('playwright-core');

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`drive: ${name} is not set`);
  return v;
};
const step = (msg) => console.log(`ok: ${msg}`);

// main launches Chromium, passes run the page and exits: 0, or 1 after a
// failure (with a screenshot of it in OUT).
function main(run) {
  const out = env('OUT');
  (async () => {
    const context = await chromium.launchPersistentContext(env('PROFILE'), {
      executablePath: env('CHROMIUM'),
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    });
    const page = context.pages()[0] || await context.newPage();
    page.setDefaultTimeout(60000);
    try {
      await run(page, out);
    } catch (err) {
      await page.screenshot({ path: `${out}/failure.png` }).catch(() => {});
      throw err;
    } finally {
      await context.close();
    }
  })().then(() => process.exit(0), (err) => {
    console.error(`FAIL: ${err && err.stack || err}`);
    process.exit(1);
  });
}

// openNotebook opens NOTEBOOK and waits until its gnnlab kernel is idle.
async function openNotebook(page) {
  await page.goto(`${env('LAB_URL')}`.replace('/lab?', `/lab/tree/${env('NOTEBOOK')}?`));
  await page.locator('.jp-Notebook .jp-Cell .cm-content').first().waitFor();
  // The kernel named in the notebook's metadata starts by itself.
  // The status bar reads "Go (gnnlab) | Idle" once the kernel is connected.
  await page.getByText(/Go \(gnnlab\) \| Idle/).first().waitFor();
  // JupyterLab asks about news on a fresh profile: say no, so that the
  // toast stays out of the screenshots.
  const no = page.locator('.jp-toast-button', { hasText: 'No' });
  await no.click({ timeout: 5000 }).catch(() => {});
}

// cellCount returns the number of cells in the notebook.
const cellCount = (page) => page.locator('.jp-Notebook .jp-Cell').count();

// runCell types code into the last cell and runs it with Shift+Enter;
// it returns the cell's locator.
async function runCell(page, code) {
  const cells = page.locator('.jp-Notebook .jp-Cell');
  const n = await cells.count();
  const cell = cells.nth(n - 1);
  await cell.locator('.cm-content').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(code);
  await page.keyboard.press('Shift+Enter');
  return cell;
}

// waitIdle waits until the cell has an execution count (not [*]).
async function waitIdle(cell) {
  await cell.locator('.jp-InputPrompt').filter({ hasText: /\[\d+\]/ }).waitFor();
}

module.exports = { env, step, main, openNotebook, cellCount, runCell, waitIdle };
