// String tensors through the JS API (issue 9): Tensor('string', string[]) in, string[] out, as in onnxruntime-web.
// The models are written inline with the ONNX writer helper.
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { OneModelError, Session, Tensor } from 'onemodel';
import createOneModel from '../npm/dist/onemodel.mjs';
import { modelBytes, node, sequenceInfo, tensor, valueInfo } from './helpers/onnx-writer.mjs';

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

// joined = Concat(a, b, a string initializer); copy = Identity(a).
const concatModel = modelBytes({
  nodes: [node('Concat', ['a', 'b', 'tail'], ['joined'], { axis: 0 }), node('Identity', ['a'], ['copy'])],
  inputs: [valueInfo('a', 'string', ['n']), valueInfo('b', 'string', ['m'])],
  outputs: [valueInfo('joined', 'string', [null]), valueInfo('copy', 'string', ['n'])],
  initializers: [tensor('tail', 'string', [2], ['end', 'ünde'])],
});

const castModel = modelBytes({
  nodes: [node('Cast', ['x'], ['text'], { to: 8 }), node('Cast', ['text'], ['back'], { to: 1 })],
  inputs: [valueInfo('x', 'float32', ['n'])],
  outputs: [valueInfo('text', 'string', ['n']), valueInfo('back', 'float32', ['n'])],
});

const parseModel = modelBytes({
  nodes: [node('Cast', ['text'], ['x'], { to: 1 })],
  inputs: [valueInfo('text', 'string', ['n'])],
  outputs: [valueInfo('x', 'float32', ['n'])],
});

const normalizerModel = (attributes) =>
  modelBytes({
    nodes: [node('StringNormalizer', ['x'], ['y'], attributes)],
    inputs: [valueInfo('x', 'string', null)],
    outputs: [valueInfo('y', 'string', null)],
  });

// Text that stresses the UTF-8 crossing: empty, multi-byte, astral, a leading BOM, an embedded NUL, a long one.
const TEXTS = ['', 'ascii', 'ünïcödé', '日本語', '🙂 emoji', '\uFEFFbom', 'nul\u0000inside', 'x'.repeat(1000)];

describe.each(['fast', 'exact'])('%s mode', (mode) => {
  test('strings round-trip through Identity and Concat with a string initializer', async () => {
    const session = await Session.create(concatModel, { mode });
    expect(session.inputs.map((i) => i.type)).toEqual(['string', 'string']);
    expect(session.outputs.map((o) => o.type)).toEqual(['string', 'string']);
    const out = await session.run({ a: new Tensor('string', TEXTS), b: new Tensor('string', ['b0']) });
    expect(out.copy).toBeInstanceOf(Tensor);
    expect(out.copy.type).toBe('string');
    expect(out.copy.dims).toEqual([TEXTS.length]);
    expect(out.copy.data).toEqual(TEXTS);
    expect(Array.isArray(out.joined.data)).toBe(true);
    expect(out.joined.data).toEqual([...TEXTS, 'b0', 'end', 'ünde']);
    expect(out.joined.dims).toEqual([TEXTS.length + 3]);

    // No elements at all, and a type inferred from a plain array of strings.
    const empty = await session.run({ a: new Tensor('string', [], [0]), b: new Tensor(['only']) });
    expect(empty.copy.data).toEqual([]);
    expect(empty.copy.dims).toEqual([0]);
    expect(empty.joined.data).toEqual(['only', 'end', 'ünde']);
    session.release();
  });

  test('a lone surrogate, which UTF-8 cannot hold, arrives as U+FFFD', async () => {
    const session = await Session.create(concatModel, { mode });
    const out = await session.run({ a: new Tensor('string', ['a\uD800b']), b: new Tensor('string', ['\uDC00']) });
    expect(out.copy.data).toEqual(['a\uFFFDb']);
    expect(out.joined.data.slice(0, 2)).toEqual(['a\uFFFDb', '\uFFFD']);
    session.release();
  });

  test('output bytes that are not UTF-8 read as U+FFFD; the other bytes are kept', async () => {
    const session = await Session.create(
      modelBytes({
        nodes: [node('Identity', ['raw'], ['text'])],
        inputs: [],
        outputs: [valueInfo('text', 'string', [2])],
        initializers: [tensor('raw', 'string', [2], [Uint8Array.from([0x61, 0xff, 0x62]), Uint8Array.from([0xc3])])],
      }),
      { mode },
    );
    expect((await session.run({})).text.data).toEqual(['a\uFFFDb', '\uFFFD']);
    session.release();
  });

  test('Cast float32 to string prints the shortest form numpy prints, and back gives the same bits', async () => {
    const session = await Session.create(castModel, { mode });
    const values = [1, 1.5, 0.1, -0, 1e-5, 1.5e20, 16777216, 3.4028235e38, 1e-45, 123456.789, NaN, Infinity, -Infinity];
    const x = new Tensor('float32', Float32Array.from(values));
    const out = await session.run({ x });
    expect(out.text.type).toBe('string');
    expect(out.text.data).toEqual([
      '1.0', '1.5', '0.1', '-0.0', '1e-05', '1.5e+20', '16777216.0', '3.4028235e+38', '1e-45', '123456.79',
      'NaN', 'INF', '-INF',
    ]);
    expect(Array.from(out.back.data)).toEqual(Array.from(x.data)); // -0 and NaN included
    session.release();
  });

  test('Cast string to float32 reads spaces, signs, exponents and the ONNX literals; other text is NaN', async () => {
    const session = await Session.create(parseModel, { mode });
    const text = [' 2.5 ', '-1e3', '+0.125', 'inf', '-Infinity', 'NaN', 'abc', ''];
    const out = await session.run({ text: new Tensor('string', text) });
    expect(Array.from(out.x.data)).toEqual([2.5, -1000, 0.125, Infinity, -Infinity, NaN, NaN, NaN]);
    session.release();
  });

  test('StringNormalizer drops stopwords and changes case', async () => {
    const days = ['Monday', 'tuesday', 'wednesday', 'Monday', 'tuesday', 'wednesday'];
    const upper = await Session.create(
      normalizerModel({ case_change_action: 'UPPER', stopwords: { strings: ['monday'] } }),
      { mode },
    );
    let out = await upper.run({ x: new Tensor('string', days, [1, 6]) });
    expect(out.y.dims).toEqual([1, 4]);
    expect(out.y.data).toEqual(['TUESDAY', 'WEDNESDAY', 'TUESDAY', 'WEDNESDAY']);
    // Latin-1 letters change case too; ß has no one-letter upper case and stays.
    out = await upper.run({ x: new Tensor('string', ['çéü straße', 'monday']) });
    expect(out.y.data).toEqual(['ÇÉÜ STRAßE']);
    // Everything filtered out: one empty string.
    out = await upper.run({ x: new Tensor('string', ['monday', 'MONDAY']) });
    expect(out.y.dims).toEqual([1]);
    expect(out.y.data).toEqual(['']);
    upper.release();

    const lower = await Session.create(
      normalizerModel({ case_change_action: 'LOWER', is_case_sensitive: 1, stopwords: { strings: ['monday'] } }),
      { mode },
    );
    out = await lower.run({ x: new Tensor('string', ['monday', 'Monday', 'ÀÉÎ']) });
    expect(out.y.data).toEqual(['monday', 'àéî']);
    lower.release();
  });
});

describe('errors', () => {
  test('a string Tensor takes an array of strings whose length fills the dims', () => {
    expect(() => new Tensor('string', ['a', 1])).toThrow(TypeError);
    expect(() => new Tensor('string', ['a', 1])).toThrow(/element 1 .* number/);
    expect(() => new Tensor('string', Float32Array.from([1]))).toThrow(TypeError);
    expect(() => new Tensor('string', 'ab')).toThrow(TypeError);
    expect(() => new Tensor(['a', 2])).toThrow(TypeError); // mixed: no type to infer
    expect(() => new Tensor('string', ['a', 'b', 'c'], [2])).toThrow(RangeError);
    expect(() => new Tensor('string', ['a', 'b'], [2, 2])).toThrow(RangeError);
  });

  test('run checks the caller\'s array again, since the Tensor keeps it', async () => {
    const session = await Session.create(concatModel);
    const b = new Tensor('string', ['b']);
    const grown = new Tensor('string', ['a', 'b'], [2]);
    grown.data.push('c');
    await expect(session.run({ a: grown, b })).rejects.toThrow(RangeError);
    const changed = new Tensor('string', ['a']);
    changed.data[0] = 7;
    await expect(session.run({ a: changed, b })).rejects.toThrow(TypeError);
    // A plain {type, data, dims} object is checked like a new Tensor.
    await expect(session.run({ a: { type: 'string', data: ['x', null], dims: [2] }, b })).rejects.toThrow(TypeError);
    session.release();
  });

  test('strings where numbers are declared, and numbers where strings are: InvalidInput', async () => {
    const parse = await Session.create(parseModel);
    let error = await rejection(parse.run({ text: new Tensor('float32', Float32Array.from([1])) }));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error.kind).toBe('InvalidInput');
    parse.release();
    const cast = await Session.create(castModel);
    error = await rejection(cast.run({ x: new Tensor('string', ['1.5']) }));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error.kind).toBe('InvalidInput');
    // The session still works.
    expect((await cast.run({ x: new Tensor('float32', [2]) })).text.data).toEqual(['2.0']);
    cast.release();
  });

  test('a string tensor in a sequence: Unsupported', async () => {
    const session = await Session.create(
      modelBytes({
        opset: 17,
        nodes: [node('SequenceLength', ['seq'], ['n'])],
        inputs: [sequenceInfo('seq', 'string')],
        outputs: [valueInfo('n', 'int64', [])],
      }),
    );
    const error = await rejection(session.run({ seq: [new Tensor('string', ['a'])] }));
    expect(error).toBeInstanceOf(OneModelError);
    expect(error.kind).toBe('Unsupported');
    session.release();
  });

  // The binding re-checks what the wrapper built: text and lengths must agree with each other and with the dims.
  test('the binding refuses string records whose lengths or count do not match', async () => {
    const module = await createOneModel({ nodeRequire: createRequire(import.meta.url) });
    const options = {
      mode: 'fast',
      intraOpThreads: 1,
      maxCachedPlans: 16,
      optimizationLevel: 'all',
      kernels: '',
      weightStorage: 'float32',
    };
    const handle = module.loadSession(parseModel, options).value;
    const lengths = (...n) => new Uint8Array(Uint32Array.from(n).buffer);
    const text = new TextEncoder().encode('1.52.5');
    const feed = (fields) => [{ name: 'text', dtype: 8, dims: [2], bytes: text, lengths: lengths(3, 3), ...fields }];

    const good = handle.run(feed({}), ['x']);
    expect(good.error).toBeUndefined();
    expect(Array.from(new Float32Array(good.value[0].bytes.buffer))).toEqual([1.5, 2.5]);

    const cases = [
      [{ lengths: lengths(3, 4) }, /string 1 runs past the 6 bytes/],
      [{ lengths: lengths(3, 2) }, /lengths add up to 5 of the 6 bytes/],
      [{ lengths: lengths(0xffffffff, 3) }, /string 0 runs past/],
      [{ lengths: new Uint8Array(7) }, /not whole uint32/],
      [{ dims: [3] }, /input 'text'.*2 values do not fill a tensor of 3/],
      [{ dims: [1] }, /input 'text'.*2 values do not fill a tensor of 1/],
    ];
    for (const [fields, message] of cases) {
      const result = handle.run(feed(fields), ['x']);
      expect(result.error?.kind).toBe('InvalidInput');
      expect(result.error.message).toMatch(message);
    }
    handle.dispose();
    handle.delete();
  });
});
