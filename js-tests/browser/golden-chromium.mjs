#!/usr/bin/env node
// Prints the golden lines computed by the wasm package in headless Chromium (v128 kernels). The real models and
// their recorded inputs are served from the cache (tools/golden.sh checks that they are there).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runInChromium } from './chromium.mjs';

const cache = process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel');
const realModels = ['cls', 'det', 'melspectrogram', 'wake-embedding'].map((name) => ({
  name,
  model: `/cache/models/${name}.onnx`,
  inputs: readFileSync(path.join(cache, 'oracle', name, 'manifest.tsv'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('input\t'))
    .map((line) => {
      const [, index, inputName] = line.split('\t');
      return { name: inputName, url: `/cache/oracle/${name}/input-${index}.npy` };
    }),
}));

try {
  const options = { params: { kernels: 'v128', realModels }, mounts: { '/cache/': cache }, timeoutMs: 900_000 };
  for (const line of await runInChromium('js-tests/browser/golden.page.mjs', options)) {
    if (!line.startsWith('#')) console.log(line);
  }
} catch (error) {
  console.error(`browser run failed: ${error.message}`);
  process.exitCode = 1;
}
