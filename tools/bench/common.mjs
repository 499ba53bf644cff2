// Pieces the benchmark scripts share: flags, the cache directory, the CLI's generated inputs (docs/cli.md), the
// timing of one ONNX Runtime session at one thread, and reading and writing .npy files.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';

// `--name value` from the command line, or the fallback.
export function option(name, fallback) {
  const args = process.argv.slice(2);
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
}

export const cacheRoot = process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel');

// docs/cli.md generated inputs, so both engines see the same numbers; symbolic extents are 1.
export function generatedTensor(type, dims) {
  const count = dims.reduce((a, b) => a * b, 1);
  if (type === 'int64') {
    return new ort.Tensor('int64', BigInt64Array.from({ length: count }, (_, i) => BigInt((i * 7919 + 13) % 10)), dims);
  }
  const data = Float32Array.from({ length: count }, (_, i) => Math.fround((((i * 7919 + 13) % 2001) - 1000) / 1000));
  return new ort.Tensor('float32', data, dims);
}

// Median milliseconds of onnxruntime-node at one thread over `seconds` of back-to-back runs (at least five), after
// five warm-up runs. `feedsFor(session)` builds the inputs.
export async function medianOrtMs(file, seconds, feedsFor) {
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = feedsFor(session);
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

// A .npy file (the recorded inputs and references; float32 and int64, C order) as { type, dims, data }.
export function readNpy(file) {
  const bytes = readFileSync(file);
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.subarray(10, 10 + headerLength).toString('latin1');
  const descr = /'descr': '([^']+)'/.exec(header)[1];
  const dims = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const body = bytes.subarray(10 + headerLength);
  const copy = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
  if (descr === '<f4') return { type: 'float32', dims, data: new Float32Array(copy) };
  if (descr === '<i8') return { type: 'int64', dims, data: new BigInt64Array(copy) };
  throw new Error(`${file}: dtype ${descr} not handled`);
}

// Writes { type, dims, data } as a version 1.0 .npy file (readNpy reads back float32 and int64).
export function writeNpy(file, { type, dims, data }) {
  const descr = { float32: '<f4', float64: '<f8', int64: '<i8', int32: '<i4', int8: '|i1', uint8: '|u1', bool: '|b1' }[type];
  if (!descr) throw new Error(`${file}: type ${type} not handled`);
  const shape = dims.length === 1 ? `${dims[0]},` : dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // the data starts 64-byte aligned
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix.writeUInt8(1, 6);
  prefix.writeUInt16LE(header.length, 8);
  writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}
