// Sequence and optional inputs and outputs through the JS API (arrays of Tensors, null), packed in JS by
// web/packed.mjs and unpacked by the library, and the JS codec itself: round trips and hostile bytes refused.
import { describe, expect, test } from 'vitest';
import { Session, Tensor } from 'onemodel';
import { isPacked, packOptional, packSequence, unpack } from '../web/packed.mjs';
import { modelBytes, node, optionalInfo, sequenceInfo, valueInfo } from './helpers/onnx-writer.mjs';

// seq_out = seq + [t]; len = its length; opt passes through; has = whether opt holds a tensor.
const model = () =>
  modelBytes({
    opset: 16,
    nodes: [
      node('SequenceInsert', ['seq', 't'], ['seq_out']),
      node('SequenceLength', ['seq_out'], ['len']),
      node('Identity', ['opt'], ['opt_out']),
      node('OptionalHasElement', ['opt'], ['has']),
    ],
    inputs: [sequenceInfo('seq', 'float32'), valueInfo('t', 'float32', [null]), optionalInfo('opt', 'int64')],
    outputs: [
      sequenceInfo('seq_out', 'float32'),
      valueInfo('len', 'int64', []),
      optionalInfo('opt_out', 'int64'),
      valueInfo('has', 'bool', []),
    ],
  });

// An optional holding a sequence, passed through.
const optionalSequenceModel = () =>
  modelBytes({
    opset: 16,
    nodes: [node('Identity', ['o'], ['y'])],
    inputs: [optionalInfo('o', 'int32', { sequence: true })],
    outputs: [optionalInfo('y', 'int32', { sequence: true })],
  });

const f32 = (values, dims) => new Tensor('float32', Float32Array.from(values), dims);
const plain = (t) => ({ type: t.type, dims: [...t.dims], data: Array.from(t.data) });

describe.each(['fast', 'exact'])('%s mode', (mode) => {
  test('sequence and optional values report their kind', async () => {
    const session = await Session.create(model(), { mode });
    expect(session.inputs.map((i) => i.kind)).toEqual(['sequence', 'tensor', 'optional']);
    expect(session.outputs.map((o) => o.kind)).toEqual(['sequence', 'tensor', 'optional', 'tensor']);
    expect(session.inputs[0].type).toBe('uint8');
    expect(session.inputs[0].dims).toBeNull();
    session.release();
  });

  test('arrays of Tensors and optionals go in and come back', async () => {
    const session = await Session.create(model(), { mode });
    const a = f32([1, 2, 3], [3]);
    const b = f32([4, 5, 6, 7], [2, 2]);
    const t = f32([-1.5], [1]);
    const opt = new Tensor('int64', BigInt64Array.from([7n, -8n]), [2]);
    const out = await session.run({ seq: [a, b], t, opt });
    expect(out.seq_out.map(plain)).toEqual([a, b, t].map(plain));
    expect(out.len.data[0]).toBe(3n);
    expect(out.opt_out).toBeInstanceOf(Tensor);
    expect(Array.from(out.opt_out.data)).toEqual([7n, -8n]);
    expect(out.has.data[0]).toBe(1);

    const empty = await session.run({ seq: [], t, opt: null });
    expect(empty.seq_out.map(plain)).toEqual([plain(t)]);
    expect(empty.len.data[0]).toBe(1n);
    expect(empty.opt_out).toBeNull();
    expect(empty.has.data[0]).toBe(0);
    session.release();
  });

  test('an optional sequence is an array', async () => {
    const session = await Session.create(optionalSequenceModel(), { mode });
    const xs = [new Tensor('int32', Int32Array.from([1, 2]), [2]), new Tensor('int32', Int32Array.from([3]), [])];
    const out = await session.run({ o: xs });
    expect(out.y.map(plain)).toEqual(xs.map(plain));
    expect((await session.run({ o: null })).y).toBeNull();
    session.release();
  });

  test('wrong sequence feeds are refused', async () => {
    const session = await Session.create(model(), { mode });
    const t = f32([1], [1]);
    await expect(session.run({ seq: t, t, opt: null })).rejects.toThrow(TypeError);
    const mixed = [t, new Tensor('int32', Int32Array.from([1]), [1])];
    await expect(session.run({ seq: mixed, t, opt: null })).rejects.toThrow(/mixes float32 and int32/);
    // A sequence of another element type reaches the operator, which refuses the insertion.
    const ints = [new Tensor('int32', Int32Array.from([1]), [1])];
    await expect(session.run({ seq: ints, t, opt: null })).rejects.toMatchObject({ kind: 'InvalidInput' });
    session.release();
  });
});

describe('packed.mjs', () => {
  const record = (code, dims, bytes) => ({ code, dims, bytes: Uint8Array.from(bytes) });
  const samples = () => [
    packSequence(1, [record(1, [2], [0, 0, 128, 63, 0, 0, 0, 64]), record(1, [], [0, 0, 64, 64])]),
    packSequence(7, []),
    packOptional(null),
    packOptional(record(2, [3], [1, 2, 3])),
    packOptional({ code: 2, records: [record(2, [1, 1], [9])] }),
  ];

  test('round trips keep every part, and data starts at multiples of 8', () => {
    const [seq, empty, none, one, inner] = samples().map(unpack);
    expect(seq.kind).toBe('sequence');
    expect(seq.records.map((r) => [r.code, r.dims, Array.from(r.bytes)])).toEqual([
      [1, [2], [0, 0, 128, 63, 0, 0, 0, 64]],
      [1, [], [0, 0, 64, 64]],
    ]);
    expect(seq.records.every((r) => r.bytes.byteOffset % 8 === 0)).toBe(true);
    expect(empty).toEqual({ kind: 'sequence', code: 7, records: [] });
    expect(none).toEqual({ kind: 'optional', value: null });
    expect(Array.from(one.value.bytes)).toEqual([1, 2, 3]);
    expect(inner.value.code).toBe(2);
    expect(Array.from(inner.value.records[0].bytes)).toEqual([9]);
  });

  test('every truncation and trailing bytes are refused', () => {
    for (const bytes of samples()) {
      expect(isPacked(bytes)).toBe(true);
      for (let n = 0; n < bytes.length; ++n) expect(() => unpack(bytes.subarray(0, n))).toThrow(/^packed value:/);
      const longer = new Uint8Array(bytes.length + 8);
      longer.set(bytes);
      expect(() => unpack(longer)).toThrow(/follow the end/);
    }
  });

  test('hostile fields are refused', () => {
    const patched = (offset, values) => {
      const b = samples()[0].slice();
      b.set(values, offset);
      return b;
    };
    expect(() => unpack(patched(0, [0]))).toThrow(/tag/);
    expect(() => unpack(patched(4, [9]))).toThrow(/unknown kind/);
    expect(() => unpack(patched(12, [255, 255, 255, 127]))).toThrow(/claims/);
    expect(() => unpack(patched(20, [9]))).toThrow(/rank 9/);
    expect(() => unpack(patched(24, [255, 255, 255, 255, 255, 255, 255, 255]))).toThrow(/extent/);
    expect(() => unpack(patched(16, [7]))).toThrow(/in a sequence of/);
  });
});
