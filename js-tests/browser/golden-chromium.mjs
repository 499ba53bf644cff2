#!/usr/bin/env node
// Prints the golden lines computed by the wasm package in headless Chromium (v128 kernels). The real models and
// their recorded inputs are served from the cache (tools/golden.sh checks that they are there).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runInChromium } from './chromium.mjs';

const cache = process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel');
// One entry per recorded case (docs/models.md): a model recorded on several cases is named <model>/<case>.
const realNames = ['cls', 'det', 'melspectrogram', 'wake-embedding', 'silero-vad-legacy', 'silero-vad-v5'];
const realModels = realNames.flatMap((name) => {
  const cases = new Map();
  for (const line of readFileSync(path.join(cache, 'oracle', name, 'manifest.tsv'), 'utf8').split('\n')) {
    if (!line.startsWith('input\t')) continue;
    const [, index, inputName, , , caseName = ''] = line.split('\t');
    if (!cases.has(caseName)) cases.set(caseName, []);
    const dir = caseName ? `${name}/${caseName}` : name;
    cases.get(caseName).push({ name: inputName, url: `/cache/oracle/${dir}/input-${index}.npy` });
  }
  return [...cases].map(([caseName, inputs]) => ({
    name: caseName ? `${name}/${caseName}` : name,
    model: `/cache/models/${name}.onnx`,
    inputs,
  }));
});

try {
  const options = { params: { kernels: 'v128', realModels }, mounts: { '/cache/': cache }, timeoutMs: 900_000 };
  for (const line of await runInChromium('js-tests/browser/golden.page.mjs', options)) {
    if (!line.startsWith('#')) console.log(line);
  }
} catch (error) {
  console.error(`browser run failed: ${error.message}`);
  process.exitCode = 1;
}
