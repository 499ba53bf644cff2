#!/usr/bin/env node
// GFLOP/s (2 x multiply-adds / time) of every distinct depthwise layer of the OCR models, as kernels-depthwise.md
// reports them: onemodel native fast and exact (`onemodel bench`, 1 thread) against onnxruntime-node (1 thread),
// on the CLI's generated inputs. Layers come from tools/bench/make_depthwise_layers.py (real weights).
//   node tools/bench/depthwise.mjs [--cli build/native/onemodel] [--seconds 1]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cacheRoot, generatedTensor, medianOrtMs, option } from './common.mjs';

const cli = option('--cli', 'build/native/onemodel');
const seconds = Number(option('--seconds', '1'));
const dir = path.join(cacheRoot, 'bench-depthwise');
execFileSync('/usr/bin/python3', ['tools/bench/make_depthwise_layers.py', path.join(cacheRoot, 'models'), dir], { stdio: 'inherit' });

const timeOrt = (file, dims) => medianOrtMs(file, seconds, () => ({ x: generatedTensor('float32', dims) }));

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
