#!/usr/bin/env node
// One engine with a JS API timed on one model, in a process of its own (bench-method.md: one process per row and
// engine): onnxruntime-node, onnxruntime-web (wasm, 1 thread) or the onemodel npm package (wasm, fast mode).
// Loads a session, makes a cold call and warm-up calls (at least 3, for 200 ms natively as the CLI's bench does,
// and 2 s in wasm: V8 first runs a module's functions from its baseline compiler and swaps in optimised code in
// the background; after 200 ms, onnxruntime-web's first second of encoder calls still took twice its later
// ones), then --reps repetitions of back-to-back calls for about --seconds each; prints one JSON line
// {ms, min, max, means} (the median, least and greatest of the repetitions' mean ms per call, and those means in
// order) and writes the last call's outputs as NAME.npy into --out.
//   node tools/bench/js-engine.mjs --engine ort-node|ort-web|onemodel --model FILE --input NAME=FILE.npy ...
//        --out DIR [--threads 1] [--reps 3] [--seconds 1]
import path from 'node:path';
import { option, readNpy, writeNpy } from './common.mjs';

const args = process.argv.slice(2);
const engine = option('--engine');
const file = option('--model');
const out = option('--out');
const threads = Number(option('--threads', '1'));
const reps = Number(option('--reps', '3'));
const seconds = Number(option('--seconds', '1'));
const inputs = args.flatMap((arg, i) => (args[i - 1] === '--input' ? [arg] : [])).map((spec) => {
  const eq = spec.indexOf('=');
  return { name: spec.slice(0, eq), tensor: readNpy(spec.slice(eq + 1)) };
});
if (!file || !out || !['ort-node', 'ort-web', 'onemodel'].includes(engine)) {
  throw new Error('usage: node tools/bench/js-engine.mjs --engine ort-node|ort-web|onemodel --model FILE --input NAME=FILE.npy ... --out DIR');
}

async function openSession() {
  if (engine === 'onemodel') {
    const onemodel = await import('onemodel');
    return { session: await onemodel.Session.create(file, { mode: 'fast' }), Tensor: onemodel.Tensor };
  }
  if (engine === 'ort-web') {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    const session = await ort.InferenceSession.create(file, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    return { session, Tensor: ort.Tensor };
  }
  const ort = (await import('onnxruntime-node')).default;
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  return { session, Tensor: ort.Tensor };
}

const { session, Tensor } = await openSession();
const feeds = Object.fromEntries(inputs.map((i) => [i.name, new Tensor(i.tensor.type, i.tensor.data, i.tensor.dims)]));
let result = await session.run(feeds);
const warmEnd = performance.now() + (engine === 'ort-node' ? 200 : 2000);
for (let calls = 0; calls < 3 || performance.now() < warmEnd; ++calls) result = await session.run(feeds);
const means = [];
for (let r = 0; r < reps; ++r) {
  let calls = 0;
  const t0 = performance.now();
  do {
    result = await session.run(feeds);
    ++calls;
  } while (performance.now() - t0 < seconds * 1000 || calls < 3);
  means.push((performance.now() - t0) / calls);
}
for (const [name, tensor] of Object.entries(result)) {
  writeNpy(path.join(out, `${name}.npy`), { type: tensor.type, dims: tensor.dims, data: tensor.data });
}
await session.release();
const sorted = [...means].sort((a, b) => a - b);
console.log(JSON.stringify({ ms: sorted[sorted.length >> 1], min: sorted[0], max: sorted[sorted.length - 1], means }));
