// Failures reach JavaScript as OneModelError with the C++ exception's kind and fields.
import { describe, expect, test } from 'vitest';
import { Model, OneModelError, Session, Tensor } from 'onemodel';
import { modelPath } from './helpers/paths.mjs';

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('import errors', () => {
  test('bytes that are not a model: Malformed, with the byte offset', async () => {
    // Field 7 (graph) announces 16 bytes but the input ends after one.
    const error = await rejection(Session.create(Uint8Array.from([0x3a, 0x10, 0x01])));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('OneModelError');
    expect(error.category).toBe('ImportError');
    expect(error.kind).toBe('Malformed');
    expect(error.offset).toBeTypeOf('number');
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThanOrEqual(3);
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.operators).toEqual([]);
  });

  test('a file that does not exist: Io, naming the file', async () => {
    const missing = modelPath('no-such-model.onnx');
    const error = await rejection(Model.load(missing));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error.kind).toBe('Io');
    expect(error.inputName).toBe(missing);
  });
});

describe('session errors', () => {
  test('unimplemented operators: UnsupportedOperator listing every one', async () => {
    const error = await rejection(Session.create(modelPath('unsupported.onnx')));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error.category).toBe('SessionError');
    expect(error.kind).toBe('UnsupportedOperator');
    expect(error.operators).toEqual(['DeformConv (opset 22)', 'ImageDecoder (opset 22)']);
    expect(error.message).toContain('DeformConv');
    expect(error.message).toContain('ImageDecoder');
  });

  test('an unknown input name, a wrong element type or a missing input: InvalidInput', async () => {
    const session = await Session.create(modelPath('scorer.onnx'));
    const bias = new Tensor('float32', Float32Array.from([0.5, 1.5]), [1, 2]);
    const features = new Tensor('float32', Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
    const cases = [
      { feature: features, bias },
      { features: new Tensor('float64', Float64Array.from([1, 2, 3, 4, 5, 6]), [2, 3]), bias },
      { features },
      { features: new Tensor('float32', Float32Array.from([1, 2, 3, 4]), [2, 2]), bias },
    ];
    for (const feeds of cases) {
      const error = await rejection(session.run(feeds));
      expect(error).toBeInstanceOf(OneModelError);
      expect(error.kind).toBe('InvalidInput');
    }
    // The session is still usable afterwards.
    const out = await session.run({ features, bias });
    expect(Array.from(out.best.data)).toEqual([6.5, 12.5]);
    session.release();
  });

  test('an unknown output name: InvalidInput', async () => {
    const session = await Session.create(modelPath('classifier.onnx'));
    const x = new Tensor('float32', Float32Array.from([1, 2, 3, 4]), [1, 4]);
    const error = await rejection(session.run({ x }, ['nope']));
    expect(error.kind).toBe('InvalidInput');
    session.release();
  });

  test('a released session or model: Disposed', async () => {
    const session = await Session.create(modelPath('classifier.onnx'));
    session.release();
    session.release(); // releasing twice is harmless
    const x = new Tensor('float32', Float32Array.from([1, 2, 3, 4]), [1, 4]);
    const error = await rejection(session.run({ x }));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error.kind).toBe('Disposed');

    const model = await Model.load(modelPath('classifier.onnx'));
    model.release();
    expect(() => model.run(Float32Array.from([1, 2, 3, 4]))).toThrow(expect.objectContaining({ kind: 'Disposed' }));
  });
});

describe('argument checks', () => {
  test('tensor construction checks type, data and dims', () => {
    expect(() => new Tensor('float31', new Float32Array(1))).toThrow(TypeError);
    expect(() => new Tensor('float32', new Float64Array(1))).toThrow(TypeError);
    expect(() => new Tensor('float32', new Float32Array(6), [4, 2])).toThrow(RangeError);
    expect(() => new Tensor('float32', new Float32Array(2), [-1, -2])).toThrow(TypeError);
    expect(() => new Tensor('float16', [1, 2])).toThrow(TypeError);
    const t = new Tensor(new Int32Array([1, 2, 3]));
    expect([t.type, t.dims, t.size]).toEqual(['int32', [3], 3]);
    expect(new Tensor('int64', [1, 2], [2]).data).toEqual(BigInt64Array.from([1n, 2n]));
    expect(new Tensor('bool', [true, false, 1]).data).toEqual(Uint8Array.from([1, 0, 1]));
  });

  test('options are checked before anything loads', async () => {
    await expect(Session.create(modelPath('classifier.onnx'), { mode: 'precise' })).rejects.toThrow(RangeError);
    await expect(Session.create(modelPath('classifier.onnx'), { intraOpThreads: -1 })).rejects.toThrow(RangeError);
    await expect(Session.create(42)).rejects.toThrow(TypeError);
    const session = await Session.create(modelPath('classifier.onnx'));
    await expect(session.run({ x: new Float32Array(4) })).rejects.toThrow(TypeError);
    session.release();
  });
});
