// The JS API on the sample models of the getting-started guide: expected values come from the guide.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { Model, Session, Tensor } from 'onemodel';
import { startServer } from './browser/server.mjs';
import { IRIS, modelPath } from './helpers/paths.mjs';

const features = () => new Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
const bias = () => new Tensor('float32', Float32Array.from([0.5, 1.5]), [1, 2]);

describe.each(['fast', 'exact'])('%s mode', (mode) => {
  test('Model.run gives the classifier probabilities', async () => {
    const model = await Model.load(modelPath('classifier.onnx'), { mode });
    const probs = model.run(Float32Array.from(IRIS));
    expect(probs).toBeInstanceOf(Float32Array);
    expect(Array.from(probs, (p) => p.toFixed(4))).toEqual(['0.2323', '0.2813', '0.4864']);
    // A plain array and an explicit shape of two rows give the same row twice.
    const two = model.run([...IRIS, ...IRIS], [2, 4]);
    expect(Array.from(two)).toEqual([...probs, ...probs]);
    model.release();
  });

  test('Session.run takes named tensors in any order and returns the outputs asked for', async () => {
    const session = await Session.create(modelPath('scorer.onnx'), { mode });
    const out = await session.run({ bias: bias(), features: features() });
    expect(Object.keys(out)).toEqual(['score', 'best']);
    expect(out.score.type).toBe('float32');
    expect(out.score.dims).toEqual([2, 2]);
    expect(Array.from(out.score.data)).toEqual([4.5, 6.5, 10.5, 12.5]);
    expect(out.best.dims).toEqual([2]);
    expect(Array.from(out.best.data)).toEqual([6.5, 12.5]);

    const onlyBest = await session.run({ features: features(), bias: bias() }, ['best']);
    expect(Object.keys(onlyBest)).toEqual(['best']);
    expect(Array.from(onlyBest.best.data)).toEqual([6.5, 12.5]);
    session.release();
  });
});

test('a session describes its inputs, outputs and kernel path', async () => {
  const session = await Session.create(modelPath('scorer.onnx'));
  expect(session.inputNames).toEqual(['features', 'bias']);
  expect(session.outputNames).toEqual(['score', 'best']);
  expect(session.inputs).toEqual([
    { name: 'features', kind: 'tensor', type: 'float32', dims: ['batch', 3] },
    { name: 'bias', kind: 'tensor', type: 'float32', dims: [1, 2] },
  ]);
  expect(session.outputs).toEqual([
    { name: 'score', kind: 'tensor', type: 'float32', dims: ['batch', 2] },
    { name: 'best', kind: 'tensor', type: 'float32', dims: ['batch'] },
  ]);
  expect(['scalar', 'v128']).toContain(session.kernelPath);
  session.release();
});

test('a model loads from a path, a file: URL, a Buffer, a Uint8Array view and an ArrayBuffer', async () => {
  const file = await readFile(modelPath('classifier.onnx'));
  const padded = new Uint8Array(file.length + 8);
  padded.set(file, 3);
  const sources = [
    modelPath('classifier.onnx'),
    pathToFileURL(modelPath('classifier.onnx')),
    file,
    padded.subarray(3, 3 + file.length),
    file.buffer.slice(file.byteOffset, file.byteOffset + file.length),
  ];
  const results = [];
  for (const source of sources) {
    const model = await Model.load(source, { mode: 'exact' });
    results.push(Array.from(model.run(Float32Array.from(IRIS))));
    model.release();
  }
  for (const r of results) expect(r).toEqual(results[0]);
});

test('a model loads from an http: URL; a missing one is an Io error', async () => {
  const server = await startServer();
  try {
    const model = await Model.load(`${server.url}/examples/models/classifier.onnx`, { mode: 'exact' });
    expect(Array.from(model.run(Float32Array.from(IRIS)), (p) => p.toFixed(4))).toEqual(['0.2323', '0.2813', '0.4864']);
    model.release();
    const missing = `${server.url}/examples/models/missing.onnx`;
    await expect(Session.create(missing)).rejects.toMatchObject({ kind: 'Io', inputName: missing });
  } finally {
    await server.close();
  }
});

test('Model exposes its session', async () => {
  const model = await Model.load(modelPath('classifier.onnx'), { mode: 'exact' });
  expect(model.session.inputs).toEqual([{ name: 'x', kind: 'tensor', type: 'float32', dims: ['batch', 4] }]);
  const out = await model.session.run({ x: new Tensor('float32', Float32Array.from(IRIS), [1, 4]) });
  expect(Array.from(out.probs.data)).toEqual(Array.from(model.run(Float32Array.from(IRIS))));
  model.release();
});
