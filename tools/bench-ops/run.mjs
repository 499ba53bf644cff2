#!/usr/bin/env node
// Operator benchmark of the core families against ONNX Runtime (onnxruntime-node 1.30.0) in one run, one thread,
// same inputs (the CLI's generated inputs, docs/cli.md): prints a Markdown table of medians and ratios.
//   node tools/bench-ops/run.mjs [--cli build/native/onemodel] [--seconds 2]
// onemodel is timed by `onemodel bench` (C++, no JS in the loop); ONNX Runtime through its Node binding, so its
// times include the binding's per-call overhead (input wrapping, output allocation).
import { execFileSync } from 'node:child_process';
import { mkdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const cli = option('--cli', 'build/native/onemodel');
const seconds = Number(option('--seconds', '2'));
const cache = path.join(process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel'), 'bench-ops');
mkdirSync(cache, { recursive: true });
if (!existsSync(path.join(cache, 'gather-128-of-30522x768.onnx'))) {
  execFileSync('/usr/bin/python3', ['tools/bench-ops/make_models.py', cache], { stdio: 'inherit' });
}

const cases = [
  'add-broadcast-1M',
  'layernorm-128x768',
  'reducemean-axis0-32x128x768',
  'reducemean-axis1-32x128x768',
  'reducemean-axis2-32x128x768',
  'transpose0213-32x128x12x64',
  'gather-128-of-30522x768',
];

// docs/cli.md generated inputs; symbolic extents are 1 (these models have none).
function generated(meta) {
  const dims = meta.shape;
  const count = dims.reduce((a, b) => a * b, 1);
  if (meta.type === 'int64') {
    return new ort.Tensor('int64', BigInt64Array.from({ length: count }, (_, i) => BigInt((i * 7919 + 13) % 10)), dims);
  }
  const data = Float32Array.from({ length: count }, (_, i) => Math.fround((((i * 7919 + 13) % 2001) - 1000) / 1000));
  return new ort.Tensor('float32', data, dims);
}

async function timeOrt(file) {
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = Object.fromEntries(session.inputNames.map((name, i) => [name, generated(session.inputMetadata[i])]));
  for (let i = 0; i < 5; ++i) await session.run(feeds);
  const times = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end || times.length < 5) {
    const t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  await session.release();
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

function timeOnemodel(file) {
  const out = execFileSync(cli, ['bench', file, '--threads', '1', '--seconds', String(seconds)]).toString();
  return Number(/median_ms (\S+)/.exec(out)[1]);
}

console.log(`| case | onemodel native fast (ms) | onnxruntime-node (ms) | ratio |`);
console.log(`|---|---:|---:|---:|`);
for (const name of cases) {
  const file = path.join(cache, `${name}.onnx`);
  const ours = timeOnemodel(file);
  const theirs = await timeOrt(file);
  console.log(`| ${name} | ${ours.toFixed(4)} | ${theirs.toFixed(4)} | ${(ours / theirs).toFixed(2)} |`);
}
