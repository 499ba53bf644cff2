#!/usr/bin/env node
// Real-model benchmark (bench-method.md): for each model of tools/real-models.tsv, on the inputs recorded by
// tools/oracle/real-models.mjs (a model recorded on several cases: its first case, e.g. silero's one chunk with zero
// state), one run that times
//   ONNX Runtime native (onnxruntime-node) and wasm (onnxruntime-web in Node, 1 thread),
//   onemodel native fast and exact (the CLI's `bench`), onemodel wasm fast and exact (`npx onemodel bench`) and
//   onemodel wasm fast through the npm package's JS API (timed as onnxruntime-web is),
// each engine in a process of its own (bench-method.md), at 1 thread (and 2 for the native engines), and prints a
// Markdown table with ratios against ONNX Runtime.
// The model `floor` is a single Add on 1x512 floats (written into the cache): its times are each engine's per-call
// overhead, the floor under any small model such as silero. The model `transformer-encoder` is the project's own
// (tools/models/make_transformer_encoder.py, written into the cache with seeded inputs), timed at sequence 128 with
// batch 1 and 8; its reference is ONNX Runtime native's output, computed here. The quantized test models (cnn-qdq,
// cnn-dynamic, encoder-dynamic, encoder-qdq) and their float models are in the default list; isnet-medium runs only
// when named (a call takes seconds natively and tens of seconds in wasm).
// A row's time is the median over its repetitions: --reps per process (the CLI: --reps processes of one each) in
// each of --rounds rounds, a round timing every engine of the model once in turn. A repetition is about --seconds
// of back-to-back calls after a cold call and warm-up, whose value is the mean time per call (bench-method.md; for
// onemodel the CLI's `mean_ms`, for the engines with a JS API tools/bench/js-engine.mjs's loop). Every engine's
// output is checked against the recorded reference (scaled error, oracles.md): a wrong answer is not a result.
//   node tools/bench/run.mjs [--models det,cls] [--threads 1,2] [--reps 3] [--rounds 1] [--seconds 1] [--cli build/native/onemodel]
//                            [--no-wasm]   (skips every wasm engine)   [--memory]   (adds a table of peak memory)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ortNode from 'onnxruntime-node';
import { modelBytes, node, valueInfo } from '../../js-tests/helpers/onnx-writer.mjs';
import { cacheRoot, generatedTensor, option, readNpy, writeNpy } from './common.mjs';

const models = option('--models', option('--model',
  'floor,det,cls,melspectrogram,wake-embedding,silero-vad-legacy,silero-vad-v5,transformer-encoder,' +
  'cnn,cnn-qdq,cnn-dynamic,encoder-fp32,encoder-dynamic,encoder-qdq')).split(',');
const wasm = !process.argv.includes('--no-wasm');  // --no-wasm runs without a built npm package
const memory = process.argv.includes('--memory');
const threadCounts = option('--threads', '1,2').split(',').map(Number);
const reps = Number(option('--reps', '3'));
const rounds = Number(option('--rounds', '1'));
const seconds = Number(option('--seconds', '1'));
const cli = option('--cli', 'build/native/onemodel');
const wasmCli = ['npm/bin/onemodel.mjs'];
const cache = cacheRoot;

// The recorded inputs and ONNX Runtime's outputs of a model's first case (docs/models.md, manifest.tsv).
function recorded(model) {
  if (model === 'floor') return floorModel();
  const dir = path.join(cache, 'oracle', model);
  const manifest = path.join(dir, 'manifest.tsv');
  if (!existsSync(manifest)) throw new Error(`${manifest} missing: run tools/fetch-models.sh && node tools/oracle/real-models.mjs`);
  const inputs = [], outputs = [];
  let firstCase;
  for (const line of readFileSync(manifest, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [kind, index, name, , , caseName = ''] = line.split('\t');
    firstCase ??= caseName;
    if (caseName !== firstCase) break;
    const file = path.join(dir, caseName, `${kind}-${index}.npy`);
    (kind === 'input' ? inputs : outputs).push({ name, file, tensor: readNpy(file) });
  }
  return { file: path.join(cache, 'models', `${model}.onnx`), inputs, outputs };
}

// y = x + x on 1x512 floats, written into the cache with its input (the CLI's generated one, docs/cli.md); its
// reference is exact.
function floorModel() {
  const dir = path.join(cache, 'bench-floor');
  const file = path.join(dir, 'add-1x512.onnx');
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, modelBytes({
    nodes: [node('Add', ['x', 'x'], ['y'])],
    inputs: [valueInfo('x', 'float32', [1, 512])],
    outputs: [valueInfo('y', 'float32', [1, 512])],
  }));
  const x = { type: 'float32', dims: [1, 512], data: generatedTensor('float32', [1, 512]).data };
  const input = path.join(dir, 'x.npy');
  writeNpy(input, x);
  const y = { type: 'float32', dims: [1, 512], data: x.data.map((v) => v + v) };
  return { file, inputs: [{ name: 'x', file: input, tensor: x }], outputs: [{ name: 'y', tensor: y }] };
}

// The encoder at sequence 128, batch 1 and 8: the script writes the model and the inputs, ONNX Runtime native
// (one thread, all optimisations) computes the reference.
async function encoderRecords() {
  const script = fileURLToPath(new URL('../models/make_transformer_encoder.py', import.meta.url));
  const file = path.join(cache, 'models', 'transformer-encoder.onnx');
  const records = [];
  for (const batch of [1, 8]) {
    const dir = path.join(cache, 'bench-encoder', `b${batch}-s128`);
    execFileSync('/usr/bin/python3', [script, file, '--inputs', dir, '--batch', String(batch), '--sequence', '128']);
    const inputs = ['input_ids', 'attention_mask'].map((name) => {
      const f = path.join(dir, `${name}.npy`);
      return { name, file: f, tensor: readNpy(f) };
    });
    const session = await ortNode.InferenceSession.create(file, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
    const out = await session.run(Object.fromEntries(inputs.map((i) => [i.name, new ortNode.Tensor(i.tensor.type, i.tensor.data, i.tensor.dims)])));
    await session.release();
    const want = out.last_hidden_state;
    records.push({ label: `transformer-encoder b${batch}`, file, inputs,
      outputs: [{ name: 'last_hidden_state', tensor: { type: 'float32', dims: want.dims, data: want.data } }] });
  }
  return records;
}

function scaledError(got, want) {
  if (got.length !== want.length) return Infinity;
  let diff = 0, scale = 0;
  for (let i = 0; i < want.length; ++i) {
    if (Number.isNaN(got[i]) !== Number.isNaN(want[i])) return Infinity;
    diff = Math.max(diff, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return scale === 0 ? diff : diff / scale;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

// --- An engine with a JS API (ONNX Runtime native or wasm, the onemodel npm package), timed around session.run by
// tools/bench/js-engine.mjs in a process of its own, as bench-method.md asks: engines sharing one process disturbed
// each other (the npm package's calls took 1.3x longer after the two ONNX Runtimes had run beside it).
const jsEngine = fileURLToPath(new URL('./js-engine.mjs', import.meta.url));
function timeJsEngine(engine, rec, threads) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'onemodel-bench-'));
  try {
    const out = execFileSync('node', [jsEngine, '--engine', engine, '--model', rec.file, '--out', dir,
      ...rec.inputs.flatMap((i) => ['--input', `${i.name}=${i.file}`]),
      '--threads', String(threads), '--reps', String(reps), '--seconds', String(seconds)]).toString();
    const error = Math.max(...rec.outputs.map((o) => scaledError(readNpy(path.join(dir, `${o.name}.npy`)).data, o.tensor.data)));
    return { means: JSON.parse(out).means, error };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- onemodel through its CLI (native binary or the wasm build in Node)
function timeOnemodel(command, rec, mode, threads) {
  const inputArgs = rec.inputs.flatMap((i) => ['--input', `${i.name}=${i.file}`]);
  const common = [...inputArgs, '--mode', mode, '--threads', String(threads)];
  const means = [];
  for (let r = 0; r < reps; ++r) {
    const out = execFileSync(command[0], [...command.slice(1), 'bench', rec.file, ...common, '--seconds', String(seconds)]).toString();
    means.push(Number(/mean_ms (\S+)/.exec(out)[1]));
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'onemodel-bench-'));
  try {
    execFileSync(command[0], [...command.slice(1), 'run', rec.file, ...common, '--out', dir]);
    const error = Math.max(...rec.outputs.map((o) => scaledError(readNpy(path.join(dir, `${o.name}.npy`)).data, o.tensor.data)));
    return { means, error };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))[1];
const flags = /flags\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))[1].split(' ');
const isa = ['sse4_2', 'avx2', 'fma', 'avx512f', 'avx512bw', 'avx512dq', 'avx512_vnni'].filter((f) => flags.includes(f)).join(' ');
const load = () => os.loadavg()[0].toFixed(2);
console.log(`Machine: ${cpu}; ${isa}; ${os.cpus().length} logical CPUs; ${os.type()} ${os.release()}; Node ${process.versions.node}; ` +
  `onnxruntime-node/web 1.30.0; load before ${load()}`);
console.log(`Method: median of ${reps * rounds} repetitions of ~${seconds} s each (${rounds} round(s) of every engine in turn; a repetition's value: its mean per call); ratios are ours / ONNX Runtime's (below 1: faster).`);
console.log();
console.log('| model | threads | engine | median ms | min–max ms | vs ORT native | vs ORT wasm | vs own fast | scaled error |');
console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
for (const model of models) {
  for (const rec of model === 'transformer-encoder' ? await encoderRecords() : [recorded(model)]) {
    const label = rec.label ?? model;
    for (const threads of threadCounts) {
      // The engines of this row group, each a function timing it once; --rounds runs them all in turn that many
      // times, so that a slow spell of the machine falls on every engine alike.
      const engines = [['onnxruntime-node', () => timeJsEngine('ort-node', rec, threads)]];
      if (threads === 1 && wasm) engines.push(['onnxruntime-web (wasm)', () => timeJsEngine('ort-web', rec, 1)]);
      engines.push(['onemodel native fast', () => timeOnemodel([cli], rec, 'fast', threads)]);
      engines.push(['onemodel native exact', () => timeOnemodel([cli], rec, 'exact', threads)]);
      if (threads === 1 && wasm) {
        engines.push(['onemodel wasm fast', () => timeOnemodel(['node', ...wasmCli], rec, 'fast', 1)]);
        engines.push(['onemodel wasm exact', () => timeOnemodel(['node', ...wasmCli], rec, 'exact', 1)]);
        // The npm package's JS API, timed like onnxruntime-web: the CLI's loop plus the binding's per-call cost.
        engines.push(['onemodel wasm fast (JS API)', () => timeJsEngine('onemodel', rec, 1)]);
      }
      const results = new Map(engines.map(([name]) => [name, { means: [], error: 0 }]));
      for (let round = 0; round < rounds; ++round) {
        for (const [name, time] of engines) {
          const { means, error } = time();
          const r = results.get(name);
          r.means.push(...means);
          r.error = Math.max(r.error, error);
        }
      }
      const row = (name) => {
        const r = results.get(name);
        return r && { ms: median(r.means), min: Math.min(...r.means), max: Math.max(...r.means), error: r.error };
      };
      const ortNative = row('onnxruntime-node'), ortWasm = row('onnxruntime-web (wasm)');
      const nativeFast = row('onemodel native fast'), wasmFast = row('onemodel wasm fast');
      const rows = [['onnxruntime-node', ortNative]];
      if (ortWasm) rows.push(['onnxruntime-web (wasm)', ortWasm]);
      rows.push(['onemodel native fast', nativeFast, ortNative]);
      rows.push(['onemodel native exact', row('onemodel native exact'), ortNative, nativeFast]);
      if (wasmFast) {
        rows.push(['onemodel wasm fast', wasmFast, ortNative, null, ortWasm]);
        rows.push(['onemodel wasm exact', row('onemodel wasm exact'), ortNative, wasmFast, ortWasm]);
        rows.push(['onemodel wasm fast (JS API)', row('onemodel wasm fast (JS API)'), ortNative, null, ortWasm]);
      }
      for (const [engine, r, vsNative, vsFast, vsWasm] of rows) {
        const ratio = (base) => (base ? (r.ms / base.ms).toFixed(2) : '');
        const ms = (v) => (v >= 1 ? v.toFixed(3) : v.toPrecision(3));  // three digits for the floor's microseconds
        console.log(`| ${label} | ${threads} | ${engine} | ${ms(r.ms)} | ${ms(r.min)}–${ms(r.max)} | ` +
          `${ratio(vsNative)} | ${ratio(vsWasm)} | ${ratio(vsFast)} | ${r.error.toExponential(1)} |`);
      }
    }
  }
}
console.log();
console.log(`load after ${load()}`);

// Peak resident memory (GNU time's maximum RSS) of one process making a session and running the model once:
// onemodel's CLI (fast, 1 thread) and onnxruntime-node in a Node process that does only that (tools/bench/ort-once.mjs;
// its baseline, Node with the binding loaded, is printed so it can be taken off).
function peakMb(command) {
  const run = spawnSync('/usr/bin/time', ['-f', 'peak_kb %M', ...command], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`${command.join(' ')} failed: ${run.stderr}`);
  return Number(/peak_kb (\d+)/.exec(run.stderr.toString())[1]) / 1024;
}
if (memory) {
  const once = fileURLToPath(new URL('./ort-once.mjs', import.meta.url));
  console.log();
  console.log(`Peak resident memory, one session and one run at 1 thread (Node + onnxruntime-node alone: ${peakMb(['node', once]).toFixed(0)} MB):`);
  console.log();
  console.log('| model | onemodel native fast MB | onnxruntime-node MB | ratio |');
  console.log('|---|---:|---:|---:|');
  for (const model of models.filter((m) => m !== 'floor' && m !== 'transformer-encoder')) {
    const rec = recorded(model);
    const ours = peakMb([cli, 'run', rec.file, ...rec.inputs.flatMap((i) => ['--input', `${i.name}=${i.file}`]), '--threads', '1']);
    const theirs = peakMb(['node', once, rec.file, ...rec.inputs.map((i) => `${i.name}=${i.file}`)]);
    console.log(`| ${model} | ${ours.toFixed(0)} | ${theirs.toFixed(0)} | ${(ours / theirs).toFixed(2)} |`);
  }
}
