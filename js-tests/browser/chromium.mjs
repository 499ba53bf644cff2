// Runs a JavaScript module inside headless Chromium and collects the lines it posts. The repository is served over
// HTTP on 127.0.0.1 (a random port) so pages can import the npm package and fetch models the way a site would.
//
//   const lines = await runInChromium('js-tests/browser/classifier.page.mjs', { params: { mode: 'exact' } });
//
// The page module's default export is called as `await run(post, params)`; every `post(line)` becomes one entry of
// the returned array. A throw in the page, a page error or a timeout rejects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot } from '../helpers/paths.mjs';
import { startServer } from './server.mjs';

export { startServer };

const CHROMIUM_ARGS = [
  '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// `script` is a path relative to the repository root (or absolute inside it). Options: `params` (JSON-serialisable,
// handed to the page function), `timeoutMs` (default 120 s), `root` (directory to serve), `mounts` (see
// startServer), `onConsole(text)`.
export async function runInChromium(script, options = {}) {
  const { params = {}, timeoutMs = 120_000, root = repoRoot, mounts, onConsole } = options;
  const relative = path.relative(root, path.resolve(root, script)).split(path.sep).join('/');
  if (relative.startsWith('..')) throw new Error(`${script} is outside the served directory ${root}`);
  const server = await startServer(root, mounts);
  const profile = await mkdtemp(path.join(tmpdir(), 'onemodel-chromium-'));
  let context;
  try {
    // A persistent context is how playwright accepts our own fresh --user-data-dir.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
      timeout: timeoutMs,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const lines = [];
    const pageErrors = [];
    await page.exposeFunction('__onemodelPost', (line) => lines.push(String(line)));
    page.on('pageerror', (error) => pageErrors.push(error));
    if (onConsole) page.on('console', (message) => onConsole(message.text()));
    const harness = `${server.url}/js-tests/browser/harness.html`;
    const query = new URLSearchParams({ script: `/${relative}`, params: JSON.stringify(params) });
    await page.goto(`${harness}?${query}`);
    const handle = await page.waitForFunction(() => window.__onemodelDone, null, { timeout: timeoutMs });
    const done = await handle.jsonValue();
    if (pageErrors.length) throw pageErrors[0];
    if (!done.ok) throw new Error(`page ${relative} failed: ${done.error}`);
    return lines;
  } finally {
    await context?.close();
    await server.close();
    await rm(profile, { recursive: true, force: true });
  }
}
