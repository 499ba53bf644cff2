#!/usr/bin/env node
// GFLOP/s (2 x multiply-adds / time) of every distinct depthwise layer of the OCR models, as kernels-depthwise.md
// reports them: onemodel native fast and exact (`onemodel bench`, 1 thread) against onnxruntime-node (1 thread),
// on the CLI's generated inputs. Layers come from tools/bench/make_depthwise_layers.py (real weights).
//   node tools/bench/depthwise.mjs [--cli build/native/onemodel] [--seconds 1]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const cli = option('--cli', 'build/native/onemodel');
const seconds = Number(option('--seconds', '1'));
const cache = process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel');
const dir = path.join(cache, 'bench-depthwise');
execFileSync('/usr/bin/python3', ['tools/bench/make_depthwise_layers.py', path.join(cache, 'models'), dir], { stdio: 'inherit' });

// docs/cli.md generated float input, so both engines see the same numbers.
const generated = (count) => Float32Array.from({ length: count }, (_, i) => Math.fround((((i * 7919 + 13) % 2001) - 1000) / 1000));

async function timeOrt(file, dims) {
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
  const feeds = { x: new ort.Tensor('float32', generated(dims.reduce((a, b) => a * b, 1)), dims) };
  for (let i = 0; i < 5; ++i) await session.run(feeds);
  const times = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end || times.length < 5) {
    const t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  await session.release();
  return times.sort((a, b) => a - b)[times.length >> 1];
}

const timeOurs = (file, mode) =>
  Number(/median_ms (\S+)/.exec(execFileSync(cli, ['bench', file, '--mode', mode, '--threads', '1', '--seconds', String(seconds)]).toString())[1]);

console.log('| layer | input | kernel/stride | onemodel fast GFLOP/s | onemodel exact GFLOP/s | onnxruntime-node GFLOP/s | fast / ORT time |');
console.log('|---|---|---|---:|---:|---:|---:|');
for (const line of readFileSync(path.join(dir, 'layers.tsv'), 'utf8').trim().split('\n')) {
  const [layer, shape, kernel, macs] = line.split('\t');
  const file = path.join(dir, `${layer}.onnx`);
  const flop = 2 * Number(macs);
  const fast = timeOurs(file, 'fast'), exact = timeOurs(file, 'exact');
  const theirs = await timeOrt(file, shape.split('x').map(Number));
  const gflops = (ms) => (flop / ms / 1e6).toFixed(1);
  console.log(`| ${layer} | ${shape} | ${kernel} | ${gflops(fast)} | ${gflops(exact)} | ${gflops(theirs)} | ${(fast / theirs).toFixed(2)} |`);
}
