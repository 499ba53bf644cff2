#!/usr/bin/env node
// Operator benchmark of the core families against ONNX Runtime (onnxruntime-node 1.30.0) in one run, one thread,
// same inputs (the CLI's generated inputs, docs/cli.md): prints a Markdown table of medians and ratios.
//   node tools/bench-ops/run.mjs [--cli build/native/onemodel] [--seconds 2]
// onemodel is timed by `onemodel bench` (C++, no JS in the loop); ONNX Runtime through its Node binding, so its
// times include the binding's per-call overhead (input wrapping, output allocation).
import { execFileSync } from 'node:child_process';
import { mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { cacheRoot, generatedTensor, medianOrtMs, option } from '../bench/common.mjs';

const cli = option('--cli', 'build/native/onemodel');
const seconds = Number(option('--seconds', '2'));
const cache = path.join(cacheRoot, 'bench-ops');
mkdirSync(cache, { recursive: true });
const cases = [
  'add-broadcast-1M',
  'layernorm-128x768',
  'reducemean-axis0-32x128x768',
  'reducemean-axis1-32x128x768',
  'reducemean-axis2-32x128x768',
  'transpose0213-32x128x12x64',
  'gather-128-of-30522x768',
  'linear-relu-1x128x512x512',
  'linear-relu-8x128x512x512',
];
// Also timed without graph passes, to show what the passes (linear-pack-fuse here) are worth.
const withoutPasses = new Set(['linear-relu-1x128x512x512', 'linear-relu-8x128x512x512']);
if (cases.some((name) => !existsSync(path.join(cache, `${name}.onnx`)))) {
  execFileSync('/usr/bin/python3', ['tools/bench-ops/make_models.py', cache], { stdio: 'inherit' });
}

const timeOrt = (file) =>
  medianOrtMs(file, seconds, (session) =>
    Object.fromEntries(
      session.inputNames.map((name, i) => {
        const meta = session.inputMetadata[i];
        return [name, generatedTensor(meta.type, meta.shape)];
      }),
    ),
  );

function timeOnemodel(file, optimization = 'all') {
  const args = ['bench', file, '--threads', '1', '--seconds', String(seconds), '--optimization', optimization];
  const out = execFileSync(cli, args).toString();
  return Number(/median_ms (\S+)/.exec(out)[1]);
}

console.log(`| case | onemodel native fast (ms) | onnxruntime-node (ms) | ratio |`);
console.log(`|---|---:|---:|---:|`);
for (const name of cases) {
  const file = path.join(cache, `${name}.onnx`);
  const ours = timeOnemodel(file);
  const theirs = await timeOrt(file);
  console.log(`| ${name} | ${ours.toFixed(4)} | ${theirs.toFixed(4)} | ${(ours / theirs).toFixed(2)} |`);
  if (withoutPasses.has(name)) {
    const plain = timeOnemodel(file, 'none');
    console.log(`| ${name}, no passes | ${plain.toFixed(4)} | ${theirs.toFixed(4)} | ${(plain / theirs).toFixed(2)} |`);
  }
}
