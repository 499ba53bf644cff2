// Oracle cases of the element-wise family (docs: /docs/oracle.md, rules: ops-elementwise.md and tensors.md §10):
// arithmetic, Mod, Pow, Max/Min/Sum/Mean, activations and transcendentals, rounding, Clip, comparisons, logic, Where,
// Cast and CastLike. Shapes cover size 0 and 1, scalars, broadcasting between ranks 0 and 4 and lengths around the
// 4/8/16-lane widths; values include NaN, infinities, signed zeros and subnormals.

import { fromValues, intRange, isBig, isFloat, randomTensor, specials, toValues } from '../lib.mjs';

const NUMERIC = ['float32', 'float64', 'float16', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
  'uint64'];
const INTEGERS = NUMERIC.filter((t) => !isFloat(t));
const SIGNED = ['float32', 'float64', 'float16', 'int8', 'int16', 'int32', 'int64'];
const HALF_UP = ['float16', 'float32', 'float64'];

// Shapes of one operand: empty, single elements, scalars and lengths around 4, 8 and 16 lanes, a few multi-axis.
const SHAPES = [[], [0], [1], [1, 1], [3], [4], [5], [7], [8], [9], [15], [16], [17], [31], [33], [63], [65], [2, 3],
  [4, 0, 3], [2, 3, 4], [2, 1, 3, 5], [3, 5, 7], [1023]];

// Operand shape pairs of binary operators, broadcasting from rank 0 to rank 4 in both directions.
const PAIRS = [[[], []], [[], [2, 3, 4, 5]], [[2, 3, 4, 5], []], [[17], [17]], [[3, 1], [1, 4]],
  [[2, 1, 4, 1], [3, 1, 5]], [[1], [0]], [[5, 1], [0]], [[4], [2, 3, 4]], [[2, 3, 1], [1]], [[2, 3, 9], [3, 1]], [[1, 1, 1, 1], [33]],
  [[6, 1, 7], [6, 5, 1]], [[16], [4, 16]], [[1, 31], [2, 1]], [[300], [300]]];

const SHAPE_TAG = (dims) => (dims.length ? dims.join('x') : 'scalar');
const tensorSpec = (name, type, dims, data) => ({ name, type, dims, data });

function makeCase(id, opset, op, inputs, outType, extra = {}) {
  const { attrs = {}, initializers = [], check, tol, exact = true, deviation, ort, nodeInputs, outputs } = extra;
  const spec = {
    id,
    opset,
    nodes: [{ op, inputs: nodeInputs ?? inputs.map((t) => t.name),
      outputs: (outputs ?? [{ name: 'y' }]).map((o) => o.name),
      attrs }],
    inputs,
    initializers,
    outputs: outputs ?? [{ name: 'y', type: outType }],
    check: check ?? (isFloat(outType) ? 'bits' : 'int'),
    exact,
  };
  if (spec.check === 'scaled') spec.tol = tol ?? 1e-4;
  if (deviation) spec.deviation = deviation;
  if (ort === false) spec.ort = false;
  return spec;
}

// Per-operator case counters, so ids are `<Op>/<label>/<n>` and unique.
function idMaker() {
  const counts = new Map();
  return (op, label) => {
    const key = `${op}/${label}`;
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    return `${key}/${n}`;
  };
}

// Values for float inputs: uniform in range with a share of specials.
const floatOpts = (extra = {}) => ({ specials: 0.15, ...extra });

// A binary case over every pair of special values of a float type, as [n, 1] against [1, n].
function specialsOuterProduct(id, op, opset, type, attrs = {}) {
  const sp = specials(type);
  return makeCase(id(op, `${type}-specials`), opset, op,
    [tensorSpec('a', type, [sp.length, 1], fromValues(type, sp)), tensorSpec('b', type, [1, sp.length], fromValues(type, sp))],
    type, { attrs });
}

function* binaryArithmetic(rng, id) {
  for (const op of ['Add', 'Sub', 'Mul', 'Div']) {
    const opsets = [7, 13, 14];
    for (const [da, db] of PAIRS) {
      const opset = rng.pick(opsets);
      const a = randomTensor(rng, 'float32', da, floatOpts());
      const b = randomTensor(rng, 'float32', db, floatOpts());
      yield makeCase(id(op, `f32-${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), opset, op,
        [tensorSpec('a', 'float32', da, a), tensorSpec('b', 'float32', db, b)], 'float32');
    }
    // Every special against every special (a full outer product through broadcasting).
    for (const type of ['float32', 'float64', 'float16']) yield specialsOuterProduct(id, op, 14, type);
    for (const type of ['float64', 'float16']) {
      for (const [da, db] of [[[7], [7]], [[2, 3, 4], [4]], [[], [17]]]) {
        yield makeCase(id(op, `${type}-${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), 14, op,
          [tensorSpec('a', type, da, randomTensor(rng, type, da, floatOpts())),
            tensorSpec('b', type, db, randomTensor(rng, type, db, floatOpts()))], type);
      }
    }
    for (const type of INTEGERS) {
      const [da, db] = rng.pick([[[9], [9]], [[3, 1], [1, 5]], [[2, 3, 4], []]]);
      // Add, Sub and Mul wrap: include the extremes. Div stays away from x/0 and MinValue/-1 (recorded below).
      const opts = op === 'Div' ? { nonzero: true } : { specials: 0.3 };
      const b = randomTensor(rng, type, db, opts);
      yield makeCase(id(op, `${type}-${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), 14, op,
        [tensorSpec('a', type, da, randomTensor(rng, type, da, op === 'Div' ? {} : opts)),
          tensorSpec('b', type, db, b)],
        type);
    }
  }
  // Integer division by zero and MinValue / -1 would trap in ONNX Runtime: only the documented results.
  for (const type of ['int32', 'int64', 'uint8', 'int8']) {
    const [lo] = intRange(type);
    const signed = !isBig(type) ? lo < 0 : true;
    const aVals = signed ? [7, -7, 0, lo] : [7, 0, 200, 1];
    const bVals = signed ? [0, 0, 0, -1] : [0, 0, 0, 0];
    const expect = signed ? [0, 0, 0, lo] : [0, 0, 0, 0];
    yield makeCase(id('Div', `${type}-by-zero`), 14, 'Div',
      [tensorSpec('a', type, [4], fromValues(type, aVals)), tensorSpec('b', type, [4], fromValues(type, bVals))],
      type, {
        ort: false,
        deviation: {
          why: 'ops-elementwise.md "Integers": x / 0 gives 0 and MinValue / -1 wraps to MinValue '
            + '(ONNX leaves both undefined)',
          expect: [tensorSpec('y', type, [4], fromValues(type, expect))],
        },
      });
  }
}

// Reference floor/truncated modulus of integers (bigint arithmetic, so every type is exact).
function intMod(a, b, fmod) {
  const x = BigInt(a);
  const y = BigInt(b);
  if (y === 0n) return 0n;
  const r = x % y;
  if (fmod || r === 0n || (r < 0n) === (y < 0n)) return r;
  return r + y;
}

function* modCases(rng, id) {
  for (const type of INTEGERS) {
    for (const fmod of [0, 1]) {
      const dims = rng.pick([[17], [3, 5]]);
      yield makeCase(id('Mod', `${type}-fmod${fmod}`), 13, 'Mod',
        [tensorSpec('a', type, dims, randomTensor(rng, type, dims)),
          tensorSpec('b', type, dims, randomTensor(rng, type, dims, { lo: -9, hi: 9, nonzero: true }))], type,
        { attrs: { fmod } });
      // The type's extremes as dividends; divisors keep away from 0 and -1 (MinValue % -1 is recorded below).
      const divisors = intRange(type)[0] < 0 ? [-9, -7, -2, 2, 3, 7, 100] : [2, 3, 7, 100];
      const a = randomTensor(rng, type, [12], { specials: 0.6 });
      const b = randomTensor(rng, type, [12], { values: divisors });
      const extra = { attrs: { fmod } };
      if (isBig(type) && fmod === 1) {
        extra.deviation = {
          why: 'ops-elementwise.md "Integers": Mod with fmod = 1 is the remainder with the dividend\'s sign, computed in '
            + 'integers; ONNX Runtime goes through double for 64-bit integers and loses the bits beyond 2^53',
          expect: [tensorSpec('y', type, [12], fromValues(type, Array.from(a, (x, i) => intMod(x, b[i], 1))))],
        };
      }
      yield makeCase(id('Mod', `${type}-fmod${fmod}-extremes`), 13, 'Mod',
        [tensorSpec('a', type, [12], a), tensorSpec('b', type, [12], b)], type, extra);
    }
  }
  for (const type of HALF_UP) yield specialsOuterProduct(id, 'Mod', 13, type, { fmod: 1 });
  for (const type of HALF_UP) {
    for (const [da, db] of [[[33], [33]], [[2, 3, 4], [1]], [[], [9]]]) {
      yield makeCase(id('Mod', `${type}-fmod1-${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), rng.pick([10, 13]), 'Mod',
        [tensorSpec('a', type, da, randomTensor(rng, type, da, floatOpts({ lo: -20, hi: 20 }))),
          tensorSpec('b', type, db, randomTensor(rng, type, db, floatOpts()))], type, { attrs: { fmod: 1 } });
    }
  }
  // x % 0 and MinValue % -1: documented results, never run on ONNX Runtime.
  for (const type of ['int32', 'int64', 'int8']) {
    const [lo] = intRange(type);
    for (const fmod of [0, 1]) {
      const a = [5, -5, lo, lo];
      const b = [0, 0, 0, -1];
      yield makeCase(id('Mod', `${type}-fmod${fmod}-by-zero`), 13, 'Mod',
        [tensorSpec('a', type, [4], fromValues(type, a)), tensorSpec('b', type, [4], fromValues(type, b))], type, {
          attrs: { fmod },
          ort: false,
          deviation: {
            why: 'ops-elementwise.md "Integers": x % 0 gives 0 and MinValue % -1 gives 0 (ONNX leaves both undefined)',
            expect: [tensorSpec('y', type, [4], fromValues(type, a.map((x, i) => intMod(x, b[i], fmod))))],
          },
        });
    }
  }
}

function* powCases(rng, id) {
  for (const [base, expo] of [['float32', 'float32'], ['float32', 'int32'], ['float32', 'int64'],
    ['float64', 'float64'],
    ['float64', 'float32'], ['float32', 'float64']]) {
    for (const [da, db] of [[[17], [17]], [[2, 3, 4], []], [[3, 1], [1, 5]], [[0], [1]]]) {
      const b = randomTensor(rng, expo, db, isFloat(expo) ? { lo: -3, hi: 3 } : { lo: -3, hi: 4 });
      // Before opset 12 base and exponent share one type.
      const opset = base === expo ? rng.pick([7, 12, 13, 15]) : rng.pick([12, 13, 15]);
      yield makeCase(id('Pow', `${base}-${expo}-${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), opset, 'Pow',
        [tensorSpec('a', base, da, randomTensor(rng, base, da, { lo: 0.05, hi: 4 })), tensorSpec('b', expo, db, b)],
        base,
        { check: 'scaled', exact: false });
    }
  }
  // Exponent 2 (x * x), 0 (1 even for NaN), 0.5 and negative bases with integral exponents.
  const sp = specials('float32').concat([-2, -0.5, 3, 1e20]);
  for (const e of [2, 0, 0.5, 3, -1]) {
    yield makeCase(id('Pow', `f32-special-exp-${e}`), 15, 'Pow',
      [tensorSpec('a', 'float32', [sp.length], Float32Array.from(sp)),
        tensorSpec('b', 'float32', [], Float32Array.of(e))],
      'float32', { check: 'scaled', exact: false });
  }
  for (const type of ['int32', 'int64']) {
    const dims = [13];
    yield makeCase(id('Pow', `${type}`), 15, 'Pow',
      [tensorSpec('a', type, dims, randomTensor(rng, type, dims, { lo: -6, hi: 6 })),
        tensorSpec('b', type, dims, randomTensor(rng, type, dims, { lo: 0, hi: 6 }))], type, { exact: false });
    // Negative exponents truncate toward zero (bases away from 0, whose negative powers are infinite).
    const bases = [2, -2, 1, -1, 3, 5, -4, 7];
    const exps = [-1, -1, -3, -2, -2, 0, -1, 1];
    yield makeCase(id('Pow', `${type}-negative-exponent`), 15, 'Pow',
      [tensorSpec('a', type, [8], fromValues(type, bases)), tensorSpec('b', type, [8], fromValues(type, exps))], type,
      { exact: false });
    // Results beyond the type saturate (ONNX Runtime's conversion of an out-of-range double is undefined).
    const big = [10, -10, 3, 2, -2, 7];
    const bigExp = [12, 11, 40, 62, 63, 2];
    const [lo, hi] = intRange(type).map(Number);
    const want = big.map((x, i) => {
      const v = Math.pow(x, bigExp[i]);
      return v >= hi ? intRange(type)[1] : v <= lo ? intRange(type)[0] : v;
    });
    yield makeCase(id('Pow', `${type}-saturate`), 15, 'Pow',
      [tensorSpec('a', type, [6], fromValues(type, big)), tensorSpec('b', type, [6], fromValues(type, bigExp))], type, {
        exact: false,
        deviation: {
          why: 'ops-elementwise.md "Pow": an integer base computes in double and converts back, saturating',
          expect: [tensorSpec('y', type, [6], fromValues(type, want))],
        },
      });
  }
}

function* variadicCases(rng, id) {
  const shapeSets = [[[7]], [[2, 3], [3]], [[], [4, 5], [1, 5]], [[2, 1, 3], [4, 1], [1, 1, 1, 3], []], [[0], [1]],
    [[33], [33], [33]]];
  for (const op of ['Max', 'Min', 'Sum', 'Mean']) {
    const types = op === 'Sum' || op === 'Mean' ? HALF_UP : NUMERIC;
    for (const shapes of shapeSets) {
      const broadcasts = shapes.some((s) => s.length !== shapes[0].length || s.some((d, i) => d !== shapes[0][i]));
      const opset = shapes.length > 1 && broadcasts
        ? rng.pick([8, 12, 13]) : rng.pick([6, 8, 13]);
      const inputs = shapes.map((d, i) => tensorSpec(`x${i}`, 'float32', d,
        randomTensor(rng, 'float32', d, floatOpts())));
      yield makeCase(id(op, `f32-${shapes.map(SHAPE_TAG).join('-')}`), opset, op, inputs, 'float32');
    }
    for (const type of types.filter((t) => t !== 'float32')) {
      const shapes = rng.pick([[[9], [9]], [[3, 1], [1, 4], [4]]]);
      const opset = op === 'Max' || op === 'Min' ? 13 : rng.pick([8, 13]);
      const inputs = shapes.map((d, i) => tensorSpec(`x${i}`, type, d, randomTensor(rng, type, d, isFloat(type)
        ? floatOpts() : { specials: 0.2 })));
      yield makeCase(id(op, `${type}-${shapes.map(SHAPE_TAG).join('-')}`), opset, op, inputs, type);
    }
  }
  // Signed-zero order and NaN placement of Max and Min (ops-elementwise.md "Max, Min").
  const z = [0, -0, 0, -0, NaN, 1, NaN, -0];
  const w = [-0, 0, 0, -0, 1, NaN, NaN, NaN];
  for (const op of ['Max', 'Min']) {
    yield makeCase(id(op, 'f32-signed-zero-nan'), 13, op,
      [tensorSpec('x0', 'float32', [8], Float32Array.from(z)), tensorSpec('x1', 'float32', [8], Float32Array.from(w))],
      'float32');
  }
}

// f32 unary operators: [op, opsets (the cases rotate through them), check, attrs variants, value range, exact].
const UNARY_F32 = [
  ['Exp', [6, 13], 'scaled', [{}], [-90, 90], true],
  ['Log', [6, 13], 'scaled', [{}], [0, 50], true],
  ['Tanh', [6, 13], 'scaled', [{}], [-12, 12], true],
  ['Sigmoid', [6, 13], 'scaled', [{}], [-9, 30], true],
  ['Erf', [9, 13], 'scaled', [{}], [-5, 5], true],
  ['Gelu', [20], 'scaled', [{}, { approximate: 'none' }, { approximate: 'tanh' }], [-9, 9], true],
  ['Sin', [7, 22], 'scaled', [{}], [-10, 10], false],
  ['Cos', [7, 22], 'scaled', [{}], [-10, 10], false],
  ['Relu', [6, 13, 14], 'bits', [{}], [-4, 4], true],
  ['LeakyRelu', [6, 16], 'bits', [{}, { alpha: { float: 0.1 } }, { alpha: { float: -1.5 } }, { alpha: { float: 0 } }],
    [-4, 4], true],
  ['HardSigmoid', [6, 22], 'bits', [{}, { alpha: { float: 0.3 }, beta: { float: 0.1 } }, { alpha: { float: -0.7 } }],
    [-5, 5], true],
  ['HardSwish', [14, 22], 'bits', [{}], [-5, 5], true],
];

// Replaces a float -0 by +0 in place (for the cases that must not meet a -0 difference); other types pass.
function dropNegativeZero(type, data) {
  if (!isFloat(type)) return data;
  data.forEach((v, k) => {
    if (type === 'float16' || type === 'bfloat16' ? v === 0x8000 : Object.is(v, -0)) data[k] = 0;
  });
  return data;
}

function* unaryF32Cases(rng, id) {
  for (const [op, opsets, check, attrsList, [lo, hi], exact] of UNARY_F32) {
    const opset = opsets[opsets.length - 1];
    for (const [i, dims] of SHAPES.entries()) {
      const attrs = attrsList[i % attrsList.length];
      const x = randomTensor(rng, 'float32', dims, floatOpts({ lo, hi }));
      // Gelu(-inf) and Relu(-0) are documented deviations; the random cases keep them out.
      if (op === 'Gelu') x.forEach((v, k) => { if (v === -Infinity) x[k] = -3; });
      // Below -3 ONNX Runtime's tanh form loses digits (see the negative-tail cases): mirrored into range here.
      if (attrs.approximate === 'tanh') x.forEach((v, k) => { if (v < -3) x[k] = -v; });
      if (op === 'Relu') dropNegativeZero('float32', x);
      yield makeCase(id(op, `f32-${SHAPE_TAG(dims)}`), opsets[i % opsets.length], op,
        [tensorSpec('x', 'float32', dims, x)], 'float32', { attrs, check, exact });
    }
    // Every special value plus values near the ends of the function's interesting range.
    const sp = specials('float32').concat([lo, hi, (lo + hi) / 2, -1e-7, 1e-7, 100, -100, 1e30, -1e30]);
    const dropped = op === 'Gelu' ? -Infinity : op === 'Relu' ? -0 : null;
    const vals = dropped === null ? sp : sp.filter((v) => !Object.is(v, dropped));
    for (const attrs of attrsList) {
      yield makeCase(id(op, 'f32-specials'), opset, op,
        [tensorSpec('x', 'float32', [vals.length], Float32Array.from(vals))],
        'float32', { attrs, check, exact });
    }
  }
  for (const attrs of [{}, { approximate: 'tanh' }]) {
    yield makeCase(id('Gelu', 'f32-minus-inf'), 20, 'Gelu',
      [tensorSpec('x', 'float32', [3], Float32Array.of(-Infinity, -Infinity, -Infinity))], 'float32', {
        attrs,
        check: 'scaled',
        deviation: {
          why: 'ops-elementwise.md "Gelu(-inf)": the library returns -0 (the limit); '
            + 'ONNX Runtime computes -inf * 0 = NaN',
          expect: [tensorSpec('y', 'float32', [3], Float32Array.of(-0, -0, -0))],
        },
      });
  }
  // Far negative tails, where ONNX Runtime's Sigmoid and tanh-form Gelu lose digits: checked against a
  // double-precision evaluation of the definition instead.
  const tails = [['Sigmoid', 13, {}, [-10, -12.5, -20, -33.3, -50, -70, -85, -87.5, -3, -7.25],
    (x) => 1 / (1 + Math.exp(-x))],
  ['Gelu', 20, { approximate: 'tanh' }, [-3, -3.9, -4.65, -5.2, -6, -7.5, -9, -10, -12, -2.5],
    (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)))]];
  for (const [op, opset, attrs, xs, reference] of tails) {
    const x = Float32Array.from(xs);
    yield makeCase(id(op, 'f32-negative-tail'), opset, op, [tensorSpec('x', 'float32', [x.length], x)], 'float32', {
      attrs,
      check: 'scaled',
      deviation: {
        why: 'ops-elementwise.md "Verification": ONNX Runtime\'s Sigmoid and tanh-form Gelu lose accuracy for large '
          + 'negative inputs, where the library is closer to the true value; expected values are the definition '
          + 'evaluated in double',
        expect: [tensorSpec('y', 'float32', [x.length], Float32Array.from(x, reference))],
      },
    });
  }
  yield makeCase(id('Relu', 'f32-negative-zero'), 14, 'Relu',
    [tensorSpec('x', 'float32', [5], Float32Array.of(-0, 0, -1, NaN, 2.5))], 'float32', {
      deviation: {
        why: 'graph-runtime.md §7 "Relu is a compare and select; -0 becomes +0"; ONNX Runtime keeps -0',
        expect: [tensorSpec('y', 'float32', [5], Float32Array.of(0, 0, 0, NaN, 2.5))],
      },
    });
  // Relu over the other float types it serves (LeakyRelu and the others are f32 only).
  for (const type of ['float64', 'float16']) {
    const x = randomTensor(rng, type, [19], floatOpts());
    yield makeCase(id('Relu', type), 14, 'Relu', [tensorSpec('x', type, [19], dropNegativeZero(type, x))], type);
  }
  for (const type of ['int8', 'int32', 'int64']) {
    const dims = [19];
    yield makeCase(id('Relu', type), 14, 'Relu',
      [tensorSpec('x', type, dims, randomTensor(rng, type, dims, { specials: 0.2 }))],
      type);
  }
}

function* unaryExactCases(rng, id) {
  // [op, types, opsets]: the f32 cases rotate through the opsets, the others use the newest.
  const table = [['Neg', SIGNED, [6, 13]], ['Abs', NUMERIC, [6, 13]], ['Sign', NUMERIC, [9, 13]],
    ['Reciprocal', HALF_UP, [6, 13]], ['Sqrt', HALF_UP, [6, 13]], ['Floor', HALF_UP, [6, 13]],
    ['Ceil', HALF_UP, [6, 13]],
    ['Round', HALF_UP, [11, 22]]];
  for (const [op, types, opsets] of table) {
    const opset = opsets[opsets.length - 1];
    for (const [i, dims] of [[], [0], [1], [9], [16], [17], [2, 3, 5], [1023]].entries()) {
      yield makeCase(id(op, `f32-${SHAPE_TAG(dims)}`), opsets[i % opsets.length], op,
        [tensorSpec('x', 'float32', dims, randomTensor(rng, 'float32', dims, floatOpts({ lo: -6, hi: 6 })))],
        'float32');
    }
    // Halves and near-halves for the rounding operators, specials for all.
    const vals = specials('float32').concat([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.4, 8388607.5, 8388608.5,
      -8388609, 1e10, 0.1]);
    yield makeCase(id(op, 'f32-specials'), opset, op,
      [tensorSpec('x', 'float32', [vals.length], Float32Array.from(vals))],
      'float32');
    for (const type of types.filter((t) => t !== 'float32')) {
      const dims = [21];
      const opts = isFloat(type) ? floatOpts({ lo: -6, hi: 6 }) : { specials: 0.25 };
      const x = randomTensor(rng, type, dims, opts);
      // Sign(NaN) in half precision is a deviation, recorded below.
      if (op === 'Sign' && type === 'float16') x.forEach((v, k) => { if ((v & 0x7fff) > 0x7c00) x[k] = 0x3c00; });
      yield makeCase(id(op, type), opset, op, [tensorSpec('x', type, dims, x)], type);
    }
  }
  const halves = fromValues('float16', [NaN, -NaN, 2, -0, 0, -3, Infinity]);
  halves[1] = 0xfe00;
  yield makeCase(id('Sign', 'float16-nan'), 13, 'Sign', [tensorSpec('x', 'float16', [7], halves)], 'float16', {
    deviation: {
      why: 'ops-elementwise.md "Sign": NaN gives NaN; ONNX Runtime\'s float16 Sign returns 0 for NaN '
        + '(its float32 Sign agrees '
        + 'with the library)',
      expect: [tensorSpec('y', 'float16', [7], fromValues('float16', [NaN, NaN, 1, 0, 0, -1, 1]))],
    },
  });
}

function* clipCases(rng, id) {
  const vals = specials('float32').concat([-3, -1.5, 0.5, 2, 7]);
  const x = () => tensorSpec('x', 'float32', [vals.length], Float32Array.from(vals));
  // Opset 6: attribute bounds with their float-extreme defaults.
  // (min > max is refused by ONNX Runtime at opset 6; the opset 11+ cases cover it.)
  for (const attrs of [{}, { min: { float: -1 } }, { max: { float: 2 } }, { min: { float: -1 }, max: { float: 2 } },
    { min: { float: -0 }, max: { float: 0 } }]) {
    yield makeCase(id('Clip', 'f32-opset6'), 6, 'Clip', [x()], 'float32', { attrs });
  }
  // Opset 11+: optional scalar inputs; '' skips one.
  const bounds = [[null, null], [-1, null], [null, 2], [-1, 2], [3, 1], [-0, 0], [NaN, 1]];
  for (const opset of [11, 12, 13]) {
    for (const [lo, hi] of bounds) {
      const names = ['x', lo === null ? '' : 'lo', hi === null ? '' : 'hi'];
      while (names[names.length - 1] === '') names.pop();
      const initializers = [];
      if (lo !== null) initializers.push(tensorSpec('lo', 'float32', [], Float32Array.of(lo)));
      if (hi !== null) initializers.push(tensorSpec('hi', 'float32', [], Float32Array.of(hi)));
      yield makeCase(id('Clip', `f32-opset${opset}`), opset, 'Clip', [x()], 'float32',
        { nodeInputs: names, initializers });
    }
  }
  for (const dims of [[17], [2, 3, 4], [0], [], [1023]]) {
    yield makeCase(id('Clip', `f32-${SHAPE_TAG(dims)}`), 13, 'Clip',
      [tensorSpec('x', 'float32', dims, randomTensor(rng, 'float32', dims, floatOpts()))], 'float32', {
        nodeInputs: ['x', 'lo', 'hi'],
        initializers: [tensorSpec('lo', 'float32', [], Float32Array.of(-1.25)),
          tensorSpec('hi', 'float32', [], Float32Array.of(2.5))],
      });
  }
  for (const type of NUMERIC.filter((t) => t !== 'float32')) {
    const dims = [23];
    const lo = isFloat(type) ? -1.5 : isBig(type) ? 3n : 3;
    const hi = isFloat(type) ? 2 : isBig(type) ? 90n : 90;
    for (const names of [['x', 'lo', 'hi'], ['x', '', 'hi'], ['x']]) {
      const initializers = [];
      if (names.includes('lo')) initializers.push(tensorSpec('lo', type, [], fromValues(type, [lo])));
      if (names.includes('hi')) initializers.push(tensorSpec('hi', type, [], fromValues(type, [hi])));
      yield makeCase(id('Clip', type), 13, 'Clip',
        [tensorSpec('x', type, dims, randomTensor(rng, type, dims, isFloat(type) ? floatOpts() : { specials: 0.3 }))],
        type,
        { nodeInputs: names, initializers });
    }
  }
}

function* comparisonCases(rng, id) {
  const table = [['Equal', [11, 13, 19]], ['Less', [7, 9, 13]], ['Greater', [7, 9, 13]], ['LessOrEqual', [12, 16]],
    ['GreaterOrEqual', [12, 16]]];
  for (const [op, opsets] of table) {
    const opset = opsets[opsets.length - 1];
    for (const [i, [da, db]] of PAIRS.slice(0, 9).entries()) {
      // Few distinct values so equality actually happens.
      const opts = { values: [0, -0, 1, -1, 2.5, NaN, Infinity, -Infinity, 2 ** -149] };
      yield makeCase(id(op, `f32-${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), opsets[i % opsets.length], op,
        [tensorSpec('a', 'float32', da, randomTensor(rng, 'float32', da, opts)),
          tensorSpec('b', 'float32', db, randomTensor(rng, 'float32', db, opts))], 'bool');
    }
    const types = NUMERIC.filter((t) => t !== 'float32').concat(op === 'Equal' ? ['bool'] : []);
    for (const type of types) {
      const dims = [3, 7];
      const opts = isFloat(type) ? floatOpts({ values: [0, -0, 1, -1, 2.5, -3] })
        : type === 'bool' ? {} : { lo: -3, hi: 3, specials: 0.3 };
      yield makeCase(id(op, type), opset, op,
        [tensorSpec('a', type, dims, randomTensor(rng, type, dims, opts)),
          tensorSpec('b', type, [7], randomTensor(rng, type, [7], opts))], 'bool');
    }
  }
}

function* logicCases(rng, id) {
  for (const dims of [[], [0], [1], [9], [17], [2, 3, 4], [300]]) {
    yield makeCase(id('Not', SHAPE_TAG(dims)), 1, 'Not',
      [tensorSpec('x', 'bool', dims, randomTensor(rng, 'bool', dims))], 'bool');
  }
  for (const op of ['And', 'Or', 'Xor']) {
    for (const [da, db] of PAIRS.slice(0, 10)) {
      yield makeCase(id(op, `${SHAPE_TAG(da)}-${SHAPE_TAG(db)}`), 7, op,
        [tensorSpec('a', 'bool', da, randomTensor(rng, 'bool', da)),
          tensorSpec('b', 'bool', db, randomTensor(rng, 'bool', db))],
        'bool');
    }
  }
}

// ONNX Runtime's Where returns +0 where it selects a -0 from X (Y's -0 is kept); the library selects the element
// as it is. ops-elementwise.md does not settle it, so X holds no -0 here until it does (reported to the lead).
function* whereCases(rng, id) {
  const triples = [[[7], [7], [7]], [[], [2, 3], [3]], [[2, 1, 4], [3, 1], [1, 1, 1, 4]], [[0], [1], []],
    [[33], [1], [33]],
    [[2, 3, 4, 5], [], []]];
  for (const [dc, dx, dy] of triples) {
    yield makeCase(id('Where', `f32-${[dc, dx, dy].map(SHAPE_TAG).join('-')}`), rng.pick([9, 16]), 'Where',
      [tensorSpec('c', 'bool', dc, randomTensor(rng, 'bool', dc)),
        tensorSpec('x', 'float32', dx, dropNegativeZero('float32', randomTensor(rng, 'float32', dx, floatOpts()))),
        tensorSpec('y', 'float32', dy, randomTensor(rng, 'float32', dy, floatOpts()))], 'float32',
      { outputs: [{ name: 'out', type: 'float32' }] });
  }
  for (const type of NUMERIC.filter((t) => t !== 'float32').concat(['bool'])) {
    const opts = isFloat(type) ? floatOpts() : type === 'bool' ? {} : { specials: 0.2 };
    yield makeCase(id('Where', type), 16, 'Where',
      [tensorSpec('c', 'bool', [3, 5], randomTensor(rng, 'bool', [3, 5])),
        tensorSpec('x', type, [5], dropNegativeZero(type, randomTensor(rng, type, [5], opts))),
        tensorSpec('y', type, [3, 1], randomTensor(rng, type, [3, 1], opts))], type,
      { outputs: [{ name: 'out', type }] });
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Cast and CastLike.

const CAST_TYPES = [...NUMERIC, 'bool', 'bfloat16'];
const ONNX_CODE = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10,
  float64: 11,
  uint32: 12, uint64: 13, bfloat16: 16 };

// Saturation to a destination integer type; 64-bit bounds are exact bigints (their Number forms round up).
function saturate(type, v) {
  const [lo, hi] = intRange(type).map(Number);
  return Math.min(Math.max(v, lo), hi);
}
const bigSaturated = (type) => (v) => {
  const [lo, hi] = intRange(type);
  const b = BigInt(v);
  return b < lo ? lo : b > hi ? hi : b;
};

// Source values that convert without touching an undefined corner (in range for integer destinations).
function castSource(rng, from, to, n) {
  if (from === 'bool') return randomTensor(rng, 'bool', [n]);
  if (!isFloat(from)) return randomTensor(rng, from, [n], { specials: 0.3, lo: -1000, hi: 1000 });
  if (isFloat(to) || to === 'bool') return randomTensor(rng, from, [n], floatOpts({ lo: -300, hi: 300 }));
  const [lo, hi] = intRange(to).map(Number);
  const span = Math.min(hi, from === 'float16' ? 60000 : 1e6);
  const wanted = [0, -0, 0.99, lo === 0 ? 0.5 : -0.99];
  while (wanted.length < n) wanted.push(rng.uniform(Math.max(lo, -span), span));
  // Rounding to the source type may leave the range (127.9 is 128 in bfloat16): such values become 0.
  const rounded = toValues(from, fromValues(from, wanted.slice(0, n)));
  return fromValues(from, rounded.map((v) => (Math.trunc(v) >= lo && Math.trunc(v) <= hi ? v : 0)));
}

// A graph from `from` to `to`: bfloat16 cannot cross onnxruntime-node's interface, so a bfloat16 source is an
// initializer and a bfloat16 destination is cast on to float32 by a second node.
function castGraph(idText, opset, from, to, data, dims, { castLike = false, deviation } = {}) {
  const nodes = [];
  const inputs = [];
  const initializers = [];
  const src = tensorSpec('x', from, dims, data);
  if (from === 'bfloat16') initializers.push(src);
  else inputs.push(src);
  const mid = to === 'bfloat16' ? 'z' : 'y';
  if (castLike) {
    initializers.push(tensorSpec('like', to, [1], fromValues(to, [0])));
    nodes.push({ op: 'CastLike', inputs: ['x', 'like'], outputs: [mid], attrs: {} });
  } else {
    nodes.push({ op: 'Cast', inputs: ['x'], outputs: [mid], attrs: { to: ONNX_CODE[to] } });
  }
  if (to === 'bfloat16') nodes.push({ op: 'Cast', inputs: ['z'], outputs: ['y'], attrs: { to: 1 } });
  const outType = to === 'bfloat16' ? 'float32' : to;
  const spec = { id: idText, opset, nodes, inputs, initializers, outputs: [{ name: 'y', type: outType }],
    check: isFloat(outType) ? 'bits' : 'int', exact: true };
  if (deviation) spec.deviation = deviation;
  return spec;
}

function* castCases(rng, id) {
  for (const from of CAST_TYPES) {
    for (const to of CAST_TYPES) {
      const n = rng.pick([5, 17, 40]);
      const opset = rng.pick([6, 9, 13, 19, 21]);
      const effective = (from === 'bfloat16' || to === 'bfloat16') && opset < 13 ? 13 : opset;
      yield castGraph(id('Cast', `${from}-to-${to}`), effective, from, to, castSource(rng, from, to, n), [n]);
    }
  }
  // Float specials into every float type and bool.
  for (const from of ['float32', 'float64', 'float16']) {
    const vals = specials(from).concat(from === 'float16' ? [] : [65504, 65519.99, 65520, 2 ** -25, 2 ** -25 + 2 ** -40,
      3 * 2 ** -26, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -30, 1e-40, 3.4e38]);
    for (const to of ['float32', 'float64', 'float16', 'bfloat16', 'bool']) {
      yield castGraph(id('Cast', `${from}-to-${to}-specials`), 19, from, to, fromValues(from, vals), [vals.length]);
    }
  }
  // Integer extremes to floats (rounding of large u64/i64) and integer wrap.
  for (const from of ['int64', 'uint64', 'int32', 'uint32']) {
    const vals = specials(from).concat(isBig(from) ? [2n ** 53n + 1n, 2n ** 24n + 1n, 2n ** 62n + 2n ** 38n, 16777217n]
      : [16777217, 16777219, 2 ** 30 + 65]);
    for (const to of ['float32', 'float64', 'float16', 'int8', 'uint8', 'int16', 'uint16']) {
      yield castGraph(id('Cast', `${from}-to-${to}-extremes`), 13, from, to, fromValues(from, vals), [vals.length]);
    }
  }
  // Out-of-range and NaN float to integer: the library saturates and maps NaN to 0 (tensors.md §10).
  for (const from of ['float32', 'float64']) {
    const vals = [NaN, Infinity, -Infinity, 1e30, -1e30, 3e9, -3e9, 70000, -70000, 300, -300, -1.5, 2.75, -0];
    for (const to of INTEGERS) {
      const expect = vals.map((v) => (Number.isNaN(v) ? 0 : saturate(to, Math.trunc(v))));
      yield castGraph(id('Cast', `${from}-to-${to}-saturate`), 13, from, to, fromValues(from, vals), [vals.length], {
        deviation: {
          why: 'tensors.md §10 and ops-elementwise.md "Cast": float to integer truncates, saturates to the target '
            + 'range and maps '
            + 'NaN to 0 (ONNX leaves out-of-range conversion undefined)',
          expect: [tensorSpec('y', to, [vals.length],
            fromValues(to, isBig(to) ? expect.map(bigSaturated(to)) : expect))],
        },
      });
    }
  }
  // Shapes: scalar, empty, multi-axis, a long tail.
  for (const dims of [[], [0], [2, 0, 3], [2, 3, 4], [1023]]) {
    yield castGraph(id('Cast', `float32-to-float16-${SHAPE_TAG(dims)}`), 19, 'float32', 'float16',
      randomTensor(rng, 'float32', dims, floatOpts({ lo: -70000, hi: 70000 })), dims);
    yield castGraph(id('Cast', `int64-to-float32-${SHAPE_TAG(dims)}`), 19, 'int64', 'float32',
      randomTensor(rng, 'int64', dims, { specials: 0.2 }), dims);
  }
  for (const [from, to] of [['float32', 'float16'], ['float16', 'float32'], ['int32', 'float32'], ['float64', 'int32'],
    ['bool', 'float32'], ['float32', 'bool'], ['int64', 'int8'], ['float32', 'bfloat16']]) {
    for (const opset of [15, 19, 21]) {
      yield castGraph(id('CastLike', `${from}-to-${to}`), opset, from, to, castSource(rng, from, to, 13), [13],
        { castLike: true });
    }
  }
}

export function* cases(rng) {
  const id = idMaker();
  yield* binaryArithmetic(rng, id);
  yield* modCases(rng, id);
  yield* powCases(rng, id);
  yield* variadicCases(rng, id);
  yield* unaryF32Cases(rng, id);
  yield* unaryExactCases(rng, id);
  yield* clipCases(rng, id);
  yield* comparisonCases(rng, id);
  yield* logicCases(rng, id);
  yield* whereCases(rng, id);
  yield* castCases(rng, id);
}
