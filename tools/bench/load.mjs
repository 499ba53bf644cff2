#!/usr/bin/env node
// Model load benchmark (issue 7 item 6, docs/bench.md "Model load"): for every real model of tools/real-models.tsv
// found in the cache (tools/fetch-models.sh) and for both formats (the ONNX file and its `onemodel convert` output,
// written into a temporary directory), the time to create a session and the memory that takes, next to ONNX
// Runtime creating a session from the same ONNX file:
//   native: `onemodel load FILE` (the CLI: map or read, import, compile, graph passes) and onnxruntime-node's
//           InferenceSession.create(path);
//   wasm:   the npm package's Session.create(bytes) in Node and onnxruntime-web's (wasm backend) on the same bytes,
//           read from the file before the clock starts.
// Every measurement is a fresh process, one thread, default graph optimisations. Every engine first creates a
// session of a one-node model, so its start-up (code paged in, the wasm module instantiated, ONNX Runtime's
// environment) is not counted. Times are wall time and the process's CPU time
// (user + system, all threads) around the creation: on a shared machine the CPU time is the steadier. Memory is the peak resident set during the
// creation minus the resident set just before it, in the same process (Linux VmHWM, reset through
// /proc/self/clear_refs). Each cell is the median of --reps repetitions, run interleaved.
//   node tools/bench/load.mjs [--models det,cls] [--reps 5] [--cli build/native/onemodel] [--no-wasm]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelBytes, node, valueInfo } from '../../js-tests/helpers/onnx-writer.mjs';

// Not common.mjs: it loads onnxruntime-node, which the other engines' processes must not carry.
const self = fileURLToPath(import.meta.url);
const repoRoot = path.resolve(path.dirname(self), '../..');
const cacheRoot = process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel');
const option = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

// --- child side: one session creation, reported as one JSON line

function statusKib(name) {
  const match = new RegExp(`^${name}:\\s*(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : -1;
}

function resetPeak() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

async function child(engine, file, warmupFile) {
  const ortOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all' };
  let create;
  if (engine === 'ort-node') {
    const { default: ort } = await import('onnxruntime-node');
    create = (source) => ort.InferenceSession.create(source, ortOptions);
  } else if (engine === 'ort-web') {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    create = (source) => ort.InferenceSession.create(source, { ...ortOptions, executionProviders: ['wasm'] });
  } else if (engine === 'onemodel-wasm') {
    const { Session } = await import('onemodel');
    create = (source) => Session.create(source, { intraOpThreads: 1 });
  } else {
    throw new Error(`unknown engine ${engine}`);
  }
  // The wasm engines take bytes (as in a browser), onnxruntime-node the path (as the native CLI does).
  const source = (f) => (engine === 'ort-node' ? f : new Uint8Array(readFileSync(f)));
  const warm = await create(source(warmupFile));
  await warm.release();
  const input = source(file);
  globalThis.gc?.();
  const baseline = statusKib('VmRSS');
  const reset = resetPeak();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const session = await create(input);
  const ms = performance.now() - t0;
  const { user, system } = process.cpuUsage(cpu0);
  const peak = statusKib('VmHWM');
  process.stdout.write(`${JSON.stringify({ ms, cpu: (user + system) / 1000, baseline, peak, reset })}\n`);
  await session.release();
  process.exit(0);
}

// --- parent side

function measure(engine, file, warmupFile, cli) {
  if (engine === 'onemodel-native') {
    const out = execFileSync(cli, ['load', file, '--threads', '1', '--warmup', warmupFile], { encoding: 'utf8' });
    const field = (name) => Number(new RegExp(`${name} (-?[\\d.]+)`).exec(out)[1]);
    return { ms: field('load_ms'), cpu: field('cpu_ms'), baseline: field('baseline_rss_kib'), peak: field('peak_rss_kib'),
      reset: field('peak_reset') === 1 };
  }
  const out = execFileSync(process.execPath, ['--expose-gc', self, '--child', engine, file, warmupFile],
    { encoding: 'utf8', cwd: repoRoot });
  return JSON.parse(out.trim().split('\n').pop());
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function realModels() {
  const names = [];
  for (const line of readFileSync(path.join(repoRoot, 'tools/real-models.tsv'), 'utf8').split('\n')) {
    if (line && !line.startsWith('#')) names.push(line.split('\t')[0]);
  }
  return names;
}

async function main() {
  const reps = Number(option('--reps', '5'));
  const cli = path.resolve(option('--cli', 'build/native/onemodel'));
  const wasm = !process.argv.includes('--no-wasm');
  const wanted = option('--models', realModels().join(',')).split(',');
  const models = [];
  for (const name of wanted) {
    const file = path.join(cacheRoot, 'models', `${name}.onnx`);
    if (existsSync(file)) models.push({ name, onnx: file });
    else console.log(`skipped ${name}: ${file} missing (run tools/fetch-models.sh ${name})`);
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'onemodel-load-'));
  try {
    const warmupFile = path.join(work, 'warmup.onnx');
    writeFileSync(warmupFile, modelBytes({
      nodes: [node('Add', ['x', 'x'], ['y'])],
      inputs: [valueInfo('x', 'float32', [1, 4])],
      outputs: [valueInfo('y', 'float32', [1, 4])],
    }));
    for (const m of models) {
      m.onemodel = path.join(work, `${m.name}.onemodel`);
      execFileSync(cli, ['convert', m.onnx, m.onemodel], { stdio: 'ignore' });
    }
    // [label, engine, file of the model, the ONNX Runtime row it is compared with]
    const rowsOf = (m) => [
      ['onnxruntime-node', 'ort-node', m.onnx, null],
      ['onemodel native, ONNX', 'onemodel-native', m.onnx, 0],
      ['onemodel native, .onemodel', 'onemodel-native', m.onemodel, 0],
      ...(wasm ? [
        ['onnxruntime-web (wasm)', 'ort-web', m.onnx, null],
        ['onemodel wasm, ONNX', 'onemodel-wasm', m.onnx, 3],
        ['onemodel wasm, .onemodel', 'onemodel-wasm', m.onemodel, 3],
      ] : []),
    ];
    const samples = new Map();
    let peakReset = true;
    for (let rep = 0; rep < reps; ++rep) {
      for (const m of models) {
        for (const [label, engine, file] of rowsOf(m)) {
          const r = measure(engine, file, warmupFile, cli);
          peakReset &&= r.reset;
          const key = `${m.name}\t${label}`;
          if (!samples.has(key)) samples.set(key, []);
          samples.get(key).push(r);
        }
      }
    }
    const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))[1];
    console.log(`Machine: ${cpu}; ${os.cpus().length} logical CPUs; ${os.type()} ${os.release()}; Node ` +
      `${process.versions.node}; ${new Date().toISOString().slice(0, 16)} UTC; load average ` +
      `${os.loadavg()[0].toFixed(2)} at the end`);
    console.log(`Method: median of ${reps} fresh processes per cell; memory is the peak RSS during creation minus ` +
      `the RSS before it${peakReset ? '' : ' (clear_refs refused: whole-process peak minus RSS before)'}; ratios ` +
      'are ours / ONNX Runtime\'s (below 1: faster or smaller).');
    console.log();
    console.log('| model | file MiB | engine | load ms | min–max ms | vs ORT | CPU ms | vs ORT | peak RSS +MiB | vs ORT |');
    console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const m of models) {
      const rows = rowsOf(m).map(([label, , file, base]) => {
        const list = samples.get(`${m.name}\t${label}`);
        const ms = list.map((s) => s.ms);
        const mib = median(list.map((s) => (s.peak - s.baseline) / 1024));
        const cpu = median(list.map((s) => s.cpu));
        return { label, file, base, ms: median(ms), min: Math.min(...ms), max: Math.max(...ms), cpu, mib };
      });
      for (const r of rows) {
        const base = r.base === null ? null : rows[r.base];
        const ratio = (a, b) => (base ? (a / b).toFixed(2) : '');
        console.log(`| ${m.name} | ${(statSync(r.file).size / 2 ** 20).toFixed(2)} | ${r.label} | ${r.ms.toFixed(1)} | ` +
          `${r.min.toFixed(1)}–${r.max.toFixed(1)} | ${ratio(r.ms, base?.ms)} | ${r.cpu.toFixed(1)} | ` +
          `${ratio(r.cpu, base?.cpu)} | ${r.mib.toFixed(1)} | ` +
          `${ratio(r.mib, base?.mib)} |`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5]);
else await main();
