#!/usr/bin/env node
// Prints the golden lines computed by the wasm package in headless Chromium (v128 kernels).
import { runInChromium } from './chromium.mjs';

try {
  for (const line of await runInChromium('js-tests/browser/golden.page.mjs', { params: { kernels: 'v128' } })) {
    if (!line.startsWith('#')) console.log(line);
  }
} catch (error) {
  console.error(`browser run failed: ${error.message}`);
  process.exitCode = 1;
}
