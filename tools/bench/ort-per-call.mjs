#!/usr/bin/env node
// ONNX Runtime native's cost per call of one model, measured in ways a loaded machine disturbs little: the
// fastest single call and the process CPU time per call (user + system), on the recorded inputs of
// tools/oracle/real-models.mjs (the model's first case), 1 thread, all optimisations. Compare with the
// `min_ms` of `onemodel bench`; run.mjs reports ONNX Runtime's mean per call, which counts the time the
// process waits for a CPU when other work competes, while the CLI's median mostly does not.
//   node tools/bench/ort-per-call.mjs MODEL [SECONDS]
import ortNode from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cacheRoot, readNpy } from './common.mjs';

const model = process.argv[2];
const seconds = Number(process.argv[3] ?? 2);
if (!model) throw new Error('usage: node tools/bench/ort-per-call.mjs MODEL [SECONDS]');
const dir = path.join(cacheRoot, 'oracle', model);
const feeds = {};
let firstCase;
for (const line of readFileSync(path.join(dir, 'manifest.tsv'), 'utf8').split('\n')) {
  if (!line || line.startsWith('#')) continue;
  const [kind, index, name, , , caseName = ''] = line.split('\t');
  firstCase ??= caseName;
  if (caseName !== firstCase) break;
  if (kind !== 'input') continue;
  const t = readNpy(path.join(dir, caseName, `input-${index}.npy`));
  feeds[name] = new ortNode.Tensor(t.type, t.data, t.dims);
}
const file = path.join(cacheRoot, 'models', `${model}.onnx`);
const session = await ortNode.InferenceSession.create(file, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
const warmEnd = performance.now() + 200;
while (performance.now() < warmEnd) await session.run(feeds);
let calls = 0, min = Infinity;
const cpu0 = process.cpuUsage(), t0 = performance.now();
do {
  const start = performance.now();
  await session.run(feeds);
  min = Math.min(min, performance.now() - start);
  ++calls;
} while (performance.now() - t0 < seconds * 1000);
const cpu = process.cpuUsage(cpu0);
await session.release();
console.log(`${model} onnxruntime-node calls ${calls} min_ms ${min.toFixed(4)} cpu_ms_per_call ${((cpu.user + cpu.system) / 1000 / calls).toFixed(4)}`);
