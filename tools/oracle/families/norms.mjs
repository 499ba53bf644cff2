// Oracle cases of the normalisation, softmax, reduction, ArgMax/ArgMin and CumSum operators (spec: ops-norms.md), at
// the opsets where their inputs or attributes change: axis subsets (negative too), keepdims, noop_with_empty_axes,
// odd extents around the 4/8/16 lane widths, a few long rows, special values, ties and select_last_index, CumSum's
// exclusive/reverse, LayerNormalization's axis/epsilon/optional outputs, GroupNormalization 18 against 21.
// Where the spec documents a deliberate difference (NaN in ReduceMax/ReduceMin and ArgMax/ArgMin: a sequential scan
// in which NaN only wins as the first element) the case carries the spec's result, from the references at the end.
import {
  CaseMaker,
  chance,
  constant,
  int64s,
  isFloat,
  numbers,
  pick,
  product,
  randInt,
  randomDims,
  randomTensor,
  scalar,
  shuffle,
  strides,
  tensor,
  typed,
  unravel,
  values,
} from './gen-util.mjs';

const ODD = [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33];
const maybeConstant = (rng, t) => (chance(rng, 0.5) ? constant(t) : t);
const TOL = 1e-4;

// Dims of rank 1..maxRank with one extent (returned as `axis`) drawn from the odd lane widths.
function dimsAround(rng, rank) {
  const dims = randomDims(rng, rank, 1, 4);
  const axis = randInt(rng, 0, rank - 1);
  dims[axis] = pick(rng, ODD);
  return { dims, axis };
}

export function* cases(rng) {
  const m = new CaseMaker();
  for (const family of [
    softmaxes,
    layerNorm,
    rmsNorm,
    instanceNorm,
    groupNorm,
    reductions,
    integerWrap,
    logSumExpNaN,
    argMaxMin,
    nanScans,
    cumSum,
  ]) {
    yield* family(rng, m);
  }
}

// Rows with special values for the softmax family: NaN, +inf, all -inf, one -inf in a normal row.
function specialRows(rng, x, dims, axis) {
  const vals = numbers('float32', x.data);
  const n = dims[axis];
  const step = strides(dims)[axis];
  const rowStarts = [...Array(product(dims)).keys()].filter((o) => unravel(o, dims)[axis] === 0);
  for (const start of rowStarts) {
    const kind = randInt(rng, 0, 5);
    const at = (j) => start + j * step;
    if (kind === 0) vals[at(randInt(rng, 0, n - 1))] = NaN;
    else if (kind === 1) vals[at(randInt(rng, 0, n - 1))] = Infinity;
    else if (kind === 2) for (let j = 0; j < n; ++j) vals[at(j)] = -Infinity;
    else if (kind === 3) vals[at(randInt(rng, 0, n - 1))] = -Infinity;
  }
  return { ...x, data: typed('float32', vals) };
}

function* softmaxes(rng, m) {
  for (const op of ['Softmax', 'LogSoftmax', 'Hardmax']) {
    for (let i = 0; i < 32; ++i) {
      const opset = pick(rng, [7, 11, 13, 13]);
      const rank = randInt(rng, 1, 4);
      const { dims, axis } = dimsAround(rng, rank);
      const scale = pick(rng, [1, 5, 30]);
      let x = randomTensor(rng, 'x', 'float32', dims, op === 'Hardmax' ? { ties: chance(rng, 0.5) } : { scale });
      if (i % 5 === 4) x = specialRows(rng, x, dims, axis);
      // The default axis (1 before opset 13) needs rank 2 there.
      const defaultAxis = i % 6 === 0 && (opset >= 13 || rank > 1);
      const attrs = defaultAxis ? {} : { axis: opset >= 11 && chance(rng, 0.3) ? axis - rank : axis };
      const check = op === 'Hardmax' ? 'bits' : 'scaled';
      const spec = {
        op,
        label: i % 5 === 4 ? 'specials' : `r${rank}`,
        opset,
        args: [x],
        attrs,
        outputs: ['float32'],
        check,
      };
      if (op === 'Hardmax' && numbers('float32', x.data).some(Number.isNaN)) {
        const defaultAxis = opset >= 13 ? -1 : 1;
        spec.deviation = {
          why: 'ops-norms.md Hardmax: a row containing NaN is all zeros; ONNX Runtime marks the NaN in some rows',
          expect: [{ name: 'y0', ...hardmaxReference(x, attrs.axis ?? defaultAxis, opset < 13) }],
        };
      }
      yield m.make(spec);
    }
    // Long rows: many vector iterations and a lane tail.
    for (const dims of [[2, 1001], [515]]) {
      const x = randomTensor(rng, 'x', 'float32', dims, { scale: 8 });
      yield m.make({
        op,
        label: 'long',
        opset: 13,
        args: [x],
        outputs: ['float32'],
        check: op === 'Hardmax' ? 'bits' : 'scaled',
      });
    }
  }
}

// Scale/bias shapes for normalised dims: the full dims, or a broadcastable suffix with ones.
function paramDims(rng, normDims) {
  if (chance(rng, 0.6)) return [...normDims];
  const keep = randInt(rng, 1, normDims.length);
  return normDims.slice(normDims.length - keep).map((d) => (chance(rng, 0.3) ? 1 : d));
}

function* layerNorm(rng, m) {
  for (let i = 0; i < 55; ++i) {
    const rank = randInt(rng, 1, 4);
    const { dims } = dimsAround(rng, rank);
    dims[rank - 1] = pick(rng, ODD);
    const kind = i % 6;
    // Kinds: plain, offset rows (mean far from 0, long enough for ONNX Runtime to stay accurate), constant rows
    // (variance 0), special values.
    if (kind === 3) dims[rank - 1] = Math.max(dims[rank - 1], 7);
    const axis = randInt(rng, 0, rank - 1);
    const normDims = dims.slice(axis);
    const opts = kind === 3 ? { lo: 99, hi: 101 } : kind === 5 ? { specials: 0.05, extremes: false } : { scale: 3 };
    let x = randomTensor(rng, 'x', 'float32', dims, opts);
    if (kind === 4) x = tensor('x', 'float32', dims, Array(product(dims)).fill(pick(rng, [0, 2.5, -7])));
    const scale = randomTensor(rng, 'scale', 'float32', paramDims(rng, normDims), { scale: 2 });
    const args = [x, maybeConstant(rng, scale)];
    if (chance(rng, 0.6))
      args.push(maybeConstant(rng, randomTensor(rng, 'bias', 'float32', paramDims(rng, normDims), { scale: 2 })));
    const attrs = {};
    if (i % 7) attrs.axis = chance(rng, 0.5) ? axis - rank : axis;
    else if (axis !== rank - 1) continue;
    if (chance(rng, 0.5)) attrs.epsilon = { float: pick(rng, [1e-5, 1e-3, 0.1, 1e-12]) };
    // Special values: Y only (the Mean of a row with an infinity has its own case, layerNormInfinities).
    const outputs =
      kind === 5
        ? ['float32']
        : pick(rng, [
            ['float32'],
            ['float32', 'float32'],
            ['float32', 'float32', 'float32'],
            ['float32', null, 'float32'],
          ]);
    yield m.make({
      op: 'LayerNormalization',
      label: `r${rank}-axis${axis}`,
      opset: 17,
      args,
      attrs,
      outputs,
      check: 'scaled',
    });
  }
  for (const dims of [
    [2, 1023],
    [3, 7, 45],
  ]) {
    const x = randomTensor(rng, 'x', 'float32', dims, { scale: 3 });
    const scale = randomTensor(rng, 'scale', 'float32', [dims[dims.length - 1]], { scale: 2 });
    const outputs = ['float32', 'float32', 'float32'];
    yield m.make({ op: 'LayerNormalization', label: 'long', opset: 17, args: [x, scale], outputs, check: 'scaled' });
  }
  yield layerNormInfinities(m);
}

// Rows holding an infinity: the spec's mean is Sum16(x) / n, so an infinite Mean (and NaN for Y and InvStdDev);
// ONNX Runtime reports NaN as that Mean. An ordinary row is checked against a double-precision reference.
function layerNormInfinities(m) {
  const rows = [
    [1, 2, -Infinity, 4, 5],
    [Infinity, 1, 2, 3, 4],
    [1, -2, 3, 4.5, 5],
  ];
  const scale = [1, 2, 0.5, -1, 1.5];
  const y = [];
  const means = [];
  const invs = [];
  for (const row of rows) {
    const mean = row.reduce((a, b) => a + b, 0) / row.length;
    const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / row.length;
    const inv = 1 / Math.sqrt(variance + Math.fround(1e-5));
    y.push(...row.map((v, j) => (v - mean) * inv * scale[j]));
    means.push(mean);
    invs.push(inv);
  }
  const out = (name, dims, vals) => ({ name, type: 'float32', dims, data: typed('float32', vals) });
  return m.make({
    op: 'LayerNormalization',
    label: 'infinities',
    opset: 17,
    args: [tensor('x', 'float32', [3, 5], rows.flat()), constant(tensor('scale', 'float32', [5], scale))],
    outputs: ['float32', 'float32', 'float32'],
    check: 'scaled',
    deviation: {
      why:
        'ops-norms.md LayerNormalization step 1: the Mean output is Sum16(x) / n, infinite for a row with ' +
        'one infinity; ONNX Runtime reports NaN',
      expect: [out('y0', [3, 5], y), out('y1', [3, 1], means), out('y2', [3, 1], invs)],
    },
  });
}

function* rmsNorm(rng, m) {
  for (let i = 0; i < 16; ++i) {
    const rank = randInt(rng, 1, 4);
    const { dims } = dimsAround(rng, rank);
    dims[rank - 1] = pick(rng, ODD);
    const axis = randInt(rng, 0, rank - 1);
    const x = randomTensor(rng, 'x', 'float32', dims, i % 5 === 4 ? { specials: 0.05, extremes: false } : { scale: 3 });
    const scale = randomTensor(rng, 'scale', 'float32', paramDims(rng, dims.slice(axis)), { scale: 2 });
    const attrs = { axis: chance(rng, 0.5) ? axis - rank : axis };
    if (chance(rng, 0.5)) attrs.epsilon = { float: pick(rng, [1e-5, 1e-3, 0.1]) };
    yield m.make({
      op: 'RMSNormalization',
      label: `r${rank}-axis${axis}`,
      opset: 23,
      args: [x, maybeConstant(rng, scale)],
      attrs,
      outputs: ['float32'],
      check: 'scaled',
    });
  }
}

function* instanceNorm(rng, m) {
  for (let i = 0; i < 20; ++i) {
    const rank = randInt(rng, 3, 5);
    const dims = [randInt(rng, 1, 3), randInt(rng, 1, 5), ...randomDims(rng, rank - 2, 1, 6)];
    dims[rank - 1] = pick(rng, ODD);
    // Offset rows (mean far from 0) of a few elements are ill-conditioned: ONNX Runtime loses accuracy there.
    if (i % 5 === 3) dims[rank - 1] = Math.max(dims[rank - 1], 7);
    const c = dims[1];
    const x = randomTensor(
      rng,
      'x',
      'float32',
      dims,
      i % 5 === 4 ? { specials: 0.05, extremes: false } : i % 5 === 3 ? { lo: 19, hi: 21 } : { scale: 3 },
    );
    const args = [
      x,
      maybeConstant(rng, randomTensor(rng, 'scale', 'float32', [c], { scale: 2 })),
      maybeConstant(rng, randomTensor(rng, 'bias', 'float32', [c], { scale: 2 })),
    ];
    const attrs = chance(rng, 0.5) ? { epsilon: { float: pick(rng, [1e-5, 1e-3, 0.1]) } } : {};
    yield m.make({
      op: 'InstanceNormalization',
      label: `r${rank}`,
      opset: pick(rng, [6, 22]),
      args,
      attrs,
      outputs: ['float32'],
      check: 'scaled',
    });
  }
}

// Opset 18-20: scale and bias per group; 21+: per channel.
function* groupNorm(rng, m) {
  for (let i = 0; i < 28; ++i) {
    const opset = i % 2 ? 21 : 18;
    const groups = randInt(rng, 1, 4);
    const rank = randInt(rng, 2, 4);
    // Blocks of at least 4 elements: ONNX Runtime loses accuracy when a block's variance is tiny, which a block of
    // 2 or 3 random values often has.
    const c = groups * (rank === 2 ? randInt(rng, 4, 5) : randInt(rng, 1, 3));
    const dims = [randInt(rng, 1, 3), c, ...randomDims(rng, rank - 2, 1, 5)];
    if (rank > 2) dims[rank - 1] = Math.max(pick(rng, ODD), 4);
    const x = randomTensor(rng, 'x', 'float32', dims, i % 7 === 6 ? { specials: 0.05, extremes: false } : { scale: 3 });
    const paramCount = opset >= 21 ? c : groups;
    const args = [
      x,
      maybeConstant(rng, randomTensor(rng, 'scale', 'float32', [paramCount], { scale: 2 })),
      maybeConstant(rng, randomTensor(rng, 'bias', 'float32', [paramCount], { scale: 2 })),
    ];
    const attrs = { num_groups: groups };
    if (chance(rng, 0.5)) attrs.epsilon = { float: pick(rng, [1e-5, 1e-3, 0.1]) };
    yield m.make({
      op: 'GroupNormalization',
      label: `g${groups}-c${c}`,
      opset,
      args,
      attrs,
      outputs: ['float32'],
      check: 'scaled',
    });
  }
}

// Per reduction: the opset where axes moved to an input, the element types (those ONNX Runtime also implements), and
// the value range that keeps the result meaningful (products near 1, logs of positive sums).
const REDUCTIONS = {
  ReduceSum: { inputFrom: 13, types: ['float32', 'float64', 'int32', 'int64'] },
  ReduceMean: { inputFrom: 18, types: ['float32', 'float64', 'int32', 'int64'] },
  ReduceMax: { inputFrom: 18, types: ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'], extraOpset: 20 },
  ReduceMin: { inputFrom: 18, types: ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'], extraOpset: 20 },
  ReduceProd: {
    inputFrom: 18,
    types: ['float32', 'float64', 'int32', 'int64'],
    floats: { lo: 0.6, hi: 1.5 },
    ints: { lo: -2, hi: 2 },
  },
  ReduceL1: { inputFrom: 18, types: ['float32', 'float64', 'int32', 'int64'] },
  ReduceL2: { inputFrom: 18, types: ['float32', 'float64'] },
  ReduceSumSquare: { inputFrom: 18, types: ['float32', 'float64', 'int32', 'int64'], ints: { lo: -20, hi: 20 } },
  ReduceLogSum: { inputFrom: 18, types: ['float32'], floats: { lo: 0.05, hi: 4 } },
  ReduceLogSumExp: { inputFrom: 18, types: ['float32'], floats: { lo: -20, hi: 20 } },
};

// A few larger shapes: long rows and long columns with lane tails.
const LONG_SHAPES = [
  [[1001], [0]],
  [[3, 333], [1]],
  [[37, 29], [0]],
  [
    [5, 7, 31],
    [0, 2],
  ],
  [[257, 3], [0]],
  [[2, 515], [-1]],
];

function* reductions(rng, m) {
  for (const [op, info] of Object.entries(REDUCTIONS)) {
    const opsets = [11, 13, 18, 21, ...(info.extraOpset ? [info.extraOpset] : [])];
    const count = op === 'ReduceSum' || op === 'ReduceMean' || op === 'ReduceMax' ? 30 : 24;
    for (let i = 0; i < count + LONG_SHAPES.length; ++i) {
      const opset = pick(rng, opsets);
      // ONNX Runtime has 8-bit ReduceMax/ReduceMin from opset 12 on.
      const type =
        i % 3 ? 'float32' : pick(rng, opset < 12 ? info.types.filter((t) => !t.endsWith('int8')) : info.types);
      let dims;
      let axes;
      if (i >= count) {
        [dims, axes] = LONG_SHAPES[i - count];
      } else {
        const rank = randInt(rng, 0, 4);
        dims = randomDims(rng, rank, isFloat(type) && chance(rng, 0.08) ? 0 : 1, 5);
        if (rank) dims[randInt(rng, 0, rank - 1)] = pick(rng, ODD);
        axes = chance(rng, 0.2) ? null : shuffle(rng, [...Array(rank).keys()]).slice(0, randInt(rng, 0, rank));
        if (axes) axes = axes.map((a) => (chance(rng, 0.3) ? a - rank : a));
        if (axes && !axes.length && opset < info.inputFrom) axes = null;
      }
      const floatOpts = { ...(info.floats ?? { scale: 4 }) };
      const specialCase = isFloat(type) && i % 5 === 2;
      // NaN in ReduceLogSumExp has its own cases (logSumExpNaN).
      // Products skip subnormals: their underflow to 0 meets an infinity sooner or later depending on the order.
      if (specialCase) {
        Object.assign(floatOpts, { specials: 0.08, extremes: false, noNaN: op === 'ReduceLogSumExp' });
        if (op === 'ReduceProd') floatOpts.subnormals = false;
      }
      const opts = isFloat(type) ? floatOpts : (info.ints ?? {});
      const x = randomTensor(rng, 'x', type, dims, opts);
      const keepdims = chance(rng, 0.5) ? 0 : 1;
      const attrs = chance(rng, 0.3) && keepdims ? {} : { keepdims };
      const args = [x];
      let noop = false;
      if (opset < info.inputFrom) {
        if (axes) attrs.axes = axes;
      } else {
        if (axes && (axes.length || chance(rng, 0.5))) args.push(maybeConstant(rng, int64s('axes', axes)));
        if (chance(rng, 0.3)) attrs.noop_with_empty_axes = (noop = chance(rng, 0.6)) ? 1 : 0;
      }
      const reduced =
        noop && !(args.length > 1 && axes.length)
          ? []
          : axesOf(args.length > 1 || attrs.axes ? axes : null, dims.length);
      const minMax = op === 'ReduceMax' || op === 'ReduceMin';
      const check = !isFloat(type) ? 'int' : minMax ? 'bits' : 'scaled';
      const spec = { op, label: `${type}-r${dims.length}`, opset, args, attrs, outputs: [type], check };
      if (product(dims) === 0) {
        const outDims = reducedDims(dims, reduced, keepdims);
        spec.deviation = {
          why:
            'ops-norms.md Reductions: the output shape of an empty input follows axes and keepdims, an empty ' +
            'reduction gives the identity (Mean 0, Max -inf, Min +inf, LogSum* -inf); ONNX Runtime returns ' +
            'wrong shapes for some empty inputs',
          expect: [
            { name: 'y0', type, dims: outDims, data: typed(type, Array(product(outDims)).fill(EMPTY_REDUCTION[op])) },
          ],
        };
      }
      if (minMax && isFloat(type) && numbers(type, x.data).some(Number.isNaN)) {
        spec.deviation = {
          why:
            'ops-norms.md Reductions, maximum and minimum: a sequential scan in which NaN wins only as the ' +
            'first element; ONNX Runtime places NaN by code path',
          expect: [{ name: 'y0', ...reduceMaxMinReference(x, reduced, keepdims, op === 'ReduceMax') }],
        };
      }
      yield m.make(spec);
    }
  }
}

// Integer wrap-around: full-range values, so sums, products and squares overflow (both wrap in two's complement).
function* integerWrap(rng, m) {
  for (const op of ['ReduceSum', 'ReduceProd', 'ReduceSumSquare', 'ReduceL1', 'ReduceMean']) {
    for (const type of ['int32', 'int64']) {
      const dims = [3, pick(rng, [5, 17])];
      const vals = values(rng, type, product(dims), { small: false });
      vals[0] = type === 'int32' ? -2147483648 : -(2 ** 53);
      const opset = pick(rng, [13, 18]);
      const args = [tensor('x', type, dims, vals)];
      const attrs = { keepdims: 0 };
      if (opset >= REDUCTIONS[op].inputFrom) args.push(constant(int64s('axes', [1])));
      else attrs.axes = [1];
      const expect = [{ name: 'y0', type, dims: [dims[0]], data: typed(type, wrapReference(op, type, vals, dims)) }];
      const why =
        'ops-norms.md Reductions, other types: integer sums, products and squares wrap around (Mean ' +
        'divides the wrapped sum); ONNX Runtime saturates';
      yield m.make({
        op,
        label: `${type}-wrap`,
        opset,
        args,
        attrs,
        outputs: [type],
        check: 'int',
        deviation: { why, expect },
      });
    }
  }
  for (const type of ['int32', 'int64']) {
    const dims = [2, 9];
    const x = tensor('x', type, dims, values(rng, type, product(dims), { small: false }));
    yield m.make({
      op: 'CumSum',
      label: `${type}-wrap`,
      opset: 14,
      args: [x, constant(scalar('axis', 'int64', 1))],
      outputs: [type],
      check: 'int',
    });
  }
}

// NaN in ReduceMax/ReduceMin and ArgMax/ArgMin: the spec's scan, at the extents its probe names (innermost 3, 6, 7,
// 50, and a leading axis), with NaN placed first in some rows.
function* nanScans(rng, m) {
  const shapes = [
    [[4, 3], [1]],
    [[3, 6], [1]],
    [[2, 7], [-1]],
    [[2, 50], [1]],
    [[5, 4], [0]],
    [
      [3, 4, 5],
      [0, 2],
    ],
  ];
  for (const op of ['ReduceMax', 'ReduceMin', 'ArgMax', 'ArgMin']) {
    for (const [dims, axes] of shapes) {
      const vals = values(rng, 'float32', product(dims), { ties: true }).map((v) => (chance(rng, 0.2) ? NaN : v));
      vals[0] = NaN;
      const x = tensor('x', 'float32', dims, vals);
      const arg = op.startsWith('Arg');
      const keepdims = randInt(rng, 0, 1);
      const reduced = axesOf(axes, dims.length);
      let expect;
      let spec;
      if (arg) {
        const last = randInt(rng, 0, 1);
        const attrs = { axis: axes[0], keepdims, select_last_index: last };
        expect = argReference(x, reduced[0], keepdims, op === 'ArgMax', last);
        spec = { op, label: 'nan-scan', opset: 13, args: [x], attrs, outputs: ['int64'], check: 'int' };
      } else {
        expect = reduceMaxMinReference(x, reduced, keepdims, op === 'ReduceMax');
        const args = [x, constant(int64s('axes', axes))];
        spec = { op, label: 'nan-scan', opset: 18, args, attrs: { keepdims }, outputs: ['float32'], check: 'bits' };
      }
      spec.deviation = {
        why:
          `ops-norms.md ${arg ? 'ArgMax, ArgMin' : 'Reductions, maximum and minimum'}: a sequential scan in which ` +
          'NaN wins only as the first element; ONNX Runtime places NaN by code path',
        expect: [{ name: 'y0', ...expect }],
      };
      yield m.make(spec);
    }
  }
}

// The result of reducing no elements, per the spec's finishing rules.
const EMPTY_REDUCTION = {
  ReduceSum: 0,
  ReduceMean: 0,
  ReduceMax: -Infinity,
  ReduceMin: Infinity,
  ReduceProd: 1,
  ReduceL1: 0,
  ReduceL2: 0,
  ReduceSumSquare: 0,
  ReduceLogSum: -Infinity,
  ReduceLogSumExp: -Infinity,
};

// The reduced axes (normalised, sorted) of axes given or absent.
const axesOf = (axes, rank) =>
  axes && axes.length ? [...new Set(axes.map((a) => (a + rank) % rank))].sort() : [...Array(rank).keys()];

function* argMaxMin(rng, m) {
  for (const op of ['ArgMax', 'ArgMin']) {
    for (let i = 0; i < 34; ++i) {
      const opset = pick(rng, [11, 12, 13, 13]);
      const rank = randInt(rng, 1, 4);
      const { dims, axis } = dimsAround(rng, rank);
      const type = i % 3 ? 'float32' : pick(rng, ['float64', 'int32', 'int64', 'int8', 'uint8']);
      const withNaN = isFloat(type) && i % 6 === 5;
      const opts = isFloat(type)
        ? { ties: chance(rng, 0.5), specials: withNaN ? 0.2 : 0.05, noNaN: !withNaN }
        : { ties: chance(rng, 0.5) };
      const x = randomTensor(rng, 'x', type, dims, opts);
      const attrs = {};
      if (i % 5) attrs.axis = opset >= 11 && chance(rng, 0.3) ? axis - rank : axis;
      const realAxis = i % 5 ? axis : 0;
      const keepdims = chance(rng, 0.5) ? 0 : 1;
      if (chance(rng, 0.7)) attrs.keepdims = keepdims;
      const last = opset >= 12 && chance(rng, 0.5) ? 1 : 0;
      if (opset >= 12 && chance(rng, 0.8)) attrs.select_last_index = last;
      const spec = {
        op,
        label: withNaN ? 'nan' : `${type}-r${rank}`,
        opset,
        args: [x],
        attrs,
        outputs: ['int64'],
        check: 'int',
      };
      if (withNaN && numbers(type, x.data).some(Number.isNaN)) {
        spec.deviation = {
          why:
            'ops-norms.md ArgMax, ArgMin: a scan from index 0 in which NaN wins only as the first element; ' +
            'ONNX Runtime places NaN by code path',
          expect: [
            {
              name: 'y0',
              ...argReference(x, realAxis, attrs.keepdims ?? 1, op === 'ArgMax', last && attrs.select_last_index),
            },
          ],
        };
      }
      yield m.make(spec);
    }
  }
}

function* cumSum(rng, m) {
  for (let i = 0; i < 44; ++i) {
    const opset = pick(rng, [11, 14]);
    const rank = randInt(rng, 1, 4);
    const { dims, axis } = dimsAround(rng, rank);
    const type = i % 3 ? 'float32' : pick(rng, ['float64', 'int32', 'int64']);
    const x = randomTensor(
      rng,
      'x',
      type,
      dims,
      isFloat(type) ? { scale: 4, specials: i % 4 === 3 ? 0.05 : 0, extremes: false } : {},
    );
    const axisType = pick(rng, ['int64', 'int32']);
    const axisValue = chance(rng, 0.3) ? axis - rank : axis;
    const attrs = {};
    if (chance(rng, 0.5)) attrs.exclusive = randInt(rng, 0, 1);
    if (chance(rng, 0.5)) attrs.reverse = randInt(rng, 0, 1);
    const args = [x, maybeConstant(rng, scalar('axis', axisType, axisValue))];
    yield m.make({
      op: 'CumSum',
      label: `${type}-r${rank}`,
      opset,
      args,
      attrs,
      outputs: [type],
      check: isFloat(type) ? 'bits' : 'int',
    });
  }
  // Signed zeros: an inclusive sum starts from x[0] itself (-0 stays -0), an exclusive one from +0.
  for (const [exclusive, reverse] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ]) {
    const x = tensor('x', 'float32', [2, 3], [-0, -0, 0, -0, 1, -0]);
    const args = [x, constant(scalar('axis', 'int64', 1))];
    yield m.make({
      op: 'CumSum',
      label: 'signed-zero',
      opset: 14,
      args,
      attrs: { exclusive, reverse },
      outputs: ['float32'],
    });
  }
}

// ReduceLogSumExp rows with NaN, infinities and ordinary values. The spec makes any NaN win (the maximum is NaN);
// ONNX Runtime lets +inf win over NaN. Ordinary rows are checked against a double-precision reference.
function* logSumExpNaN(rng, m) {
  const rows = [
    [NaN, Infinity, 1, 2],
    [Infinity, 1, 2, 3],
    [-Infinity, -Infinity, -Infinity, -Infinity],
    [1, 2, 3, -Infinity],
    [NaN, 1, 2, 3],
    [-Infinity, NaN, 5, 0.5],
  ];
  const logSumExp = (row) => {
    if (row.some(Number.isNaN)) return NaN;
    const top = Math.max(...row);
    if (!Number.isFinite(top)) return top;
    return top + Math.log(row.reduce((sum, v) => sum + Math.exp(v - top), 0));
  };
  for (const keepdims of [0, 1]) {
    const x = tensor('x', 'float32', [rows.length, 4], rows.flat());
    const dims = keepdims ? [rows.length, 1] : [rows.length];
    yield m.make({
      op: 'ReduceLogSumExp',
      label: 'nan-inf',
      opset: 18,
      args: [x, constant(int64s('axes', [1]))],
      attrs: { keepdims },
      outputs: ['float32'],
      check: 'scaled',
      deviation: {
        why:
          'ops-norms.md Reductions, terms and finishing (LogSumExp): the maximum is NaN when any element is, so NaN ' +
          'wins; ONNX Runtime returns +inf for a row with NaN and +inf',
        expect: [{ name: 'y0', type: 'float32', dims, data: typed('float32', rows.map(logSumExp)) }],
      },
    });
  }
}

// --- References for the deviations ---

// Output dims of a reduction over `reduced` axes.
const reducedDims = (dims, reduced, keepdims) =>
  dims.flatMap((d, a) => (reduced.includes(a) ? (keepdims ? [1] : []) : [d]));

// Flat output offset of every input element (row-major), for reductions over `reduced` axes.
function outputOffsets(dims, reduced) {
  const kept = dims.map((d, a) => (reduced.includes(a) ? 1 : d));
  const outStrides = strides(kept);
  return Array.from({ length: product(dims) }, (_, o) =>
    unravel(o, dims).reduce((sum, v, a) => sum + (reduced.includes(a) ? 0 : v * outStrides[a]), 0),
  );
}

// ReduceMax/ReduceMin as the spec defines them: scan the reduced elements in row-major order; the running value is
// replaced only by a strictly better one, so NaN survives only when it comes first. Empty: -inf (max) / +inf (min).
function reduceMaxMinReference(x, reduced, keepdims, isMax) {
  const vals = numbers(x.type, x.data);
  const outDims = reducedDims(x.dims, reduced, keepdims);
  const out = new Array(product(outDims)).fill(undefined);
  outputOffsets(x.dims, reduced).forEach((o, k) => {
    const v = vals[k];
    if (out[o] === undefined || (isMax ? v > out[o] : v < out[o])) out[o] = v;
  });
  const empty = isMax ? -Infinity : Infinity;
  return {
    type: x.type,
    dims: outDims,
    data: typed(
      x.type,
      out.map((v) => (v === undefined ? empty : v)),
    ),
  };
}

// Hardmax as the spec defines it: 1 at the first maximum of each row, a row holding NaN all zeros. Rows run along
// `axis` (opset 13+) or, coerced to 2-D, over everything from `axis` on (before 13).
function hardmaxReference(x, axis, coerce) {
  const vals = numbers('float32', x.data);
  const rank = x.dims.length;
  const a = axis < 0 ? axis + rank : axis;
  const dims = coerce ? [product(x.dims.slice(0, a)), product(x.dims.slice(a))] : x.dims;
  const rowAxis = coerce ? 1 : a;
  const rows = new Map();
  outputOffsets(dims, [rowAxis]).forEach((row, k) => rows.set(row, [...(rows.get(row) ?? []), k]));
  const out = new Array(vals.length).fill(0);
  for (const members of rows.values()) {
    if (members.some((k) => Number.isNaN(vals[k]))) continue;
    let best = members[0];
    for (const k of members) if (vals[k] > vals[best]) best = k;
    out[best] = 1;
  }
  return { type: 'float32', dims: x.dims, data: typed('float32', out) };
}

// Integer reductions of the rows of a 2-D input in two's complement: every operation wraps to the type's width.
function wrapReference(op, type, vals, [rows, n]) {
  const bits = type === 'int32' ? 32 : 64;
  const wrap = (v) => BigInt.asIntN(bits, v);
  const out = [];
  for (let r = 0; r < rows; ++r) {
    const row = vals.slice(r * n, (r + 1) * n).map(BigInt);
    let acc = op === 'ReduceProd' ? 1n : 0n;
    for (const v of row) {
      if (op === 'ReduceProd') acc = wrap(acc * v);
      else if (op === 'ReduceSumSquare') acc = wrap(acc + wrap(v * v));
      else if (op === 'ReduceL1') acc = wrap(acc + wrap(v < 0n ? -v : v));
      else acc = wrap(acc + v);
    }
    // BigInt division truncates toward zero, as the spec's integer mean does.
    out.push(op === 'ReduceMean' ? acc / BigInt(n) : acc);
  }
  return out;
}

// ArgMax/ArgMin as the spec defines them: scan from index 0; a later element wins when strictly better (or equal,
// with select_last_index); NaN never wins unless first.
function argReference(x, axis, keepdims, isMax, selectLast) {
  const vals = numbers(x.type, x.data);
  const outDims = reducedDims(x.dims, [axis], keepdims);
  const best = new Array(product(outDims)).fill(undefined);
  const index = new Array(best.length).fill(0);
  outputOffsets(x.dims, [axis]).forEach((o, k) => {
    const v = vals[k];
    const j = unravel(k, x.dims)[axis];
    const better = isMax ? v > best[o] || (selectLast && v === best[o]) : v < best[o] || (selectLast && v === best[o]);
    if (best[o] === undefined || better) {
      best[o] = v;
      index[o] = j;
    }
  });
  return { type: 'int64', dims: outDims, data: typed('int64', index) };
}
