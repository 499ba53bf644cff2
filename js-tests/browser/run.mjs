#!/usr/bin/env node
// Runs a page module in headless Chromium and prints the lines it posts; exits non-zero on any failure.
//   node js-tests/browser/run.mjs [PAGE.mjs] [key=value]...
// Default page: the sample classifier in exact mode (js-tests/browser/classifier.page.mjs). key=value pairs become
// the page's params (e.g. kernels=scalar).
import { runInChromium } from './chromium.mjs';

const args = process.argv.slice(2);
const page = args.find((a) => !a.includes('=')) ?? 'js-tests/browser/classifier.page.mjs';
const params = Object.fromEntries(args.filter((a) => a.includes('=')).map((a) => a.split(/=(.*)/s).slice(0, 2)));
try {
  for (const line of await runInChromium(page, { params, onConsole: (text) => console.error(`[page] ${text}`) })) {
    console.log(line);
  }
} catch (error) {
  console.error(`browser run failed: ${error.message}`);
  process.exitCode = 1;
}
