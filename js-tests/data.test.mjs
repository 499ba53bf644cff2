// Element types across the boundary, memory growth, and exact mode's promise across the wasm kernel paths.
import { afterEach, expect, test } from 'vitest';
import { Model, Session, Tensor } from 'onemodel';
import { modelBytes, node, tensor, valueInfo } from './helpers/onnx-writer.mjs';
import { hashLines } from './helpers/hash.mjs';
import { IRIS, modelPath } from './helpers/paths.mjs';

const TABLE = Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);

// emb = table[ids] (a 4x2 float table), twice = big + big: int64 in both directions.
const int64Model = modelBytes({
  nodes: [node('Gather', ['table', 'ids'], ['emb'], { axis: 0 }), node('Add', ['big', 'big'], ['twice'])],
  initializers: [tensor('table', 'float32', [4, 2], TABLE)],
  inputs: [valueInfo('ids', 'int64', ['n']), valueInfo('big', 'int64', ['m'])],
  outputs: [valueInfo('emb', 'float32', ['n', 2]), valueInfo('twice', 'int64', ['m'])],
});

test('int64 tensors travel as BigInt64Array, beyond 2^53', async () => {
  const session = await Session.create(int64Model);
  expect(session.inputs[0]).toEqual({ name: 'ids', kind: 'tensor', type: 'int64', dims: ['n'] });
  const big = BigInt64Array.from([2n ** 61n + 3n, -5n, 0n]);
  const out = await session.run({
    ids: new Tensor('int64', BigInt64Array.from([3n, 0n, 2n])),
    big: new Tensor(big),
  });
  expect(out.emb.dims).toEqual([3, 2]);
  expect(Array.from(out.emb.data)).toEqual([6, 7, 0, 1, 4, 5]);
  expect(out.twice.type).toBe('int64');
  expect(out.twice.data).toBeInstanceOf(BigInt64Array);
  expect(Array.from(out.twice.data)).toEqual([2n ** 62n + 6n, -10n, 0n]);
  session.release();
});

test('Model.run takes token ids as BigInt64Array and Int32Array', async () => {
  const gather = modelBytes({
    nodes: [node('Gather', ['table', 'ids'], ['emb'], { axis: 0 })],
    initializers: [tensor('table', 'float32', [4, 2], TABLE)],
    inputs: [valueInfo('ids', 'int64', ['n'])],
    outputs: [valueInfo('emb', 'float32', ['n', 2])],
  });
  const model = await Model.load(gather);
  expect(Array.from(model.run(BigInt64Array.from([1n, 3n])))).toEqual([2, 3, 6, 7]);
  model.release();
});

test('bool outputs arrive as 0/1 bytes', async () => {
  const cast = modelBytes({
    nodes: [node('Cast', ['x'], ['y'], { to: 9 })],
    inputs: [valueInfo('x', 'float32', [4])],
    outputs: [valueInfo('y', 'bool', [4])],
  });
  const session = await Session.create(cast);
  const out = await session.run({ x: new Tensor(Float32Array.from([0, 2.5, -1, 0])) });
  expect(out.y.type).toBe('bool');
  expect(out.y.data).toEqual(Uint8Array.from([0, 1, 1, 0]));
  session.release();
});

test('outputs stay valid when the wasm memory grows', async () => {
  const session = await Session.create(modelPath('scorer.onnx'), { mode: 'exact' });
  const bias = new Tensor('float32', Float32Array.from([0.5, 1.5]), [1, 2]);
  const small = () =>
    session.run({ features: new Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]), bias });
  const before = await small();

  // 4M rows: 48 MB in and 48 MB out, far beyond the initial 16 MB memory.
  const rows = 4_000_000;
  const features = new Float32Array(rows * 3);
  for (let i = 0; i < features.length; ++i) features[i] = i % 7;
  const large = await session.run({ features: new Tensor('float32', features, [rows, 3]), bias });
  expect(large.score.dims).toEqual([rows, 2]);
  for (const r of [0, 1, 12345, rows - 1]) {
    const [a, b, c] = features.subarray(r * 3, r * 3 + 3);
    expect(large.score.data[r * 2]).toBe(a + c + 0.5);
    expect(large.score.data[r * 2 + 1]).toBe(b + c + 1.5);
    expect(large.best.data[r]).toBe(Math.max(a + c + 0.5, b + c + 1.5));
  }

  // Results made before the growth are still readable, and a later run agrees with them.
  expect(before.score.data.byteLength).toBe(16);
  expect(Array.from(before.score.data)).toEqual([4.5, 6.5, 10.5, 12.5]);
  const after = await small();
  expect(Array.from(after.best.data)).toEqual(Array.from(before.best.data));
  session.release();
});

// An input for wide.onnx shaped like the exact-mode cookbook's; the values only need to be the same for both paths.
function wideInput() {
  const x = new Float32Array(256);
  for (let i = 0; i < x.length; ++i) x[i] = Math.fround(Math.sin(Math.fround(i * 0.37)));
  return x;
}

async function exactHashes(kernels) {
  const lines = [];
  const classifier = await Session.create(modelPath('classifier.onnx'), { mode: 'exact', kernels });
  expect(classifier.kernelPath).toBe(kernels);
  lines.push(...(await hashLines(await classifier.run({ x: new Tensor('float32', Float32Array.from(IRIS), [1, 4]) }))));
  classifier.release();
  const wide = await Session.create(modelPath('wide.onnx'), { mode: 'exact', kernels });
  lines.push(...(await hashLines(await wide.run({ x: new Tensor('float32', wideInput(), [1, 256]) }))));
  wide.release();
  return lines;
}

test('exact mode: the scalar and v128 kernel paths give identical bits', async () => {
  const scalar = await exactHashes('scalar');
  const v128 = await exactHashes('v128');
  expect(scalar).toHaveLength(2);
  expect(v128).toEqual(scalar);
});

const savedKernels = process.env.ONEMODEL_KERNELS;
afterEach(() => {
  if (savedKernels === undefined) delete process.env.ONEMODEL_KERNELS;
  else process.env.ONEMODEL_KERNELS = savedKernels;
});

test('ONEMODEL_KERNELS picks the kernel path when the options do not', async () => {
  for (const path of ['scalar', 'v128']) {
    process.env.ONEMODEL_KERNELS = path;
    const session = await Session.create(modelPath('classifier.onnx'));
    expect(session.kernelPath).toBe(path);
    session.release();
  }
  process.env.ONEMODEL_KERNELS = 'scalar';
  const forced = await Session.create(modelPath('classifier.onnx'), { kernels: 'v128' });
  expect(forced.kernelPath).toBe('v128');
  forced.release();
});
