#!/usr/bin/env node
// Prints wide.onnx's exact-mode output hash computed in headless Chromium (v128 kernels), as `y <sha256>`.
import { runInChromium } from './chromium.mjs';

try {
  for (const line of await runInChromium('js-tests/browser/wide-hash.page.mjs', { params: { kernels: 'v128' } })) {
    console.log(line);
  }
} catch (error) {
  console.error(`browser run failed: ${error.message}`);
  process.exitCode = 1;
}
