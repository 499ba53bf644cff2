// Oracle cases of the shape and indexing operators (spec: ops-shape-indexing.md). Every operator of its table at the
// opsets where its inputs or attributes change, with element types, empty and size-1 extents, scalars, negative
// axes and indices, Slice sentinels, all Pad modes, TopK ties. Where the spec settles a point against ONNX Runtime
// (TopK with NaN, Pad reflect beyond one period or on an extent of 1, OneHot of a rank-0 index) the case carries the
// spec's result as a deviation, computed by the small references at the end of this file.
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
import { tensor as protoTensor } from '../../../js-tests/helpers/onnx-writer.mjs';

const MOVE_TYPES = [
  'float32',
  'float64',
  'float16',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'bool',
];
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

// A constant or a run-time input, chosen at random: both the plan-time and the run-time shaping paths get cases.
const maybeConstant = (rng, t) => (chance(rng, 0.5) ? constant(t) : t);
const data = (rng, type, dims, opts = { specials: 0.1 }) => randomTensor(rng, 'x', type, dims, opts);
const dimsWithZeros = (rng, rank) => randomDims(rng, rank, chance(rng, 0.15) ? 0 : 1, 5);

export function* cases(rng) {
  const m = new CaseMaker();
  for (const family of [
    shapeOp,
    size,
    squeeze,
    unsqueeze,
    flatten,
    reshapeIdentity,
    dropout,
    transpose,
    concat,
    split,
    slice,
    expand,
    tile,
    gather,
    gatherElements,
    gatherNd,
    scatterNd,
    pad,
    constantOfShape,
    range,
    oneHot,
    trilu,
    nonZero,
    topK,
    chains,
  ]) {
    yield* family(rng, m);
  }
}

function* shapeOp(rng, m) {
  for (let i = 0; i < 22; ++i) {
    const opset = pick(rng, [7, 13, 15, 19, 21]);
    const rank = randInt(rng, 0, 5);
    const attrs = {};
    if (opset >= 15 && i % 3) {
      if (chance(rng, 0.7)) attrs.start = randInt(rng, -7, 7);
      if (chance(rng, 0.7)) attrs.end = randInt(rng, -7, 7);
    }
    const x = data(rng, pick(rng, MOVE_TYPES), dimsWithZeros(rng, rank));
    yield m.make({ op: 'Shape', label: `r${rank}`, opset, args: [x], attrs, outputs: ['int64'] });
  }
}

function* size(rng, m) {
  for (let i = 0; i < 8; ++i) {
    const rank = randInt(rng, 0, 4);
    const x = data(rng, pick(rng, MOVE_TYPES), dimsWithZeros(rng, rank));
    yield m.make({ op: 'Size', label: `r${rank}`, opset: pick(rng, [7, 13, 19, 21]), args: [x], outputs: ['int64'] });
  }
}

// Dims with some extents of 1, for Squeeze.
function squeezableDims(rng) {
  const rank = randInt(rng, 1, 5);
  return Array.from({ length: rank }, () => (chance(rng, 0.5) ? 1 : randInt(rng, 0, 4)));
}

function* squeeze(rng, m) {
  for (let i = 0; i < 20; ++i) {
    const opset = pick(rng, [11, 13, 21]);
    const dims = squeezableDims(rng);
    const type = pick(rng, MOVE_TYPES);
    const ones = dims.map((d, a) => (d === 1 ? a : -1)).filter((a) => a >= 0);
    let axes = null;
    if (ones.length && i % 4) {
      axes = shuffle(rng, ones)
        .slice(0, randInt(rng, 1, ones.length))
        .map((a) => (chance(rng, 0.4) ? a - dims.length : a));
    }
    const x = data(rng, type, dims);
    const label = axes ? 'axes' : 'all';
    if (opset < 13) {
      yield m.make({ op: 'Squeeze', label, opset, args: [x], attrs: axes ? { axes } : {}, outputs: [type] });
    } else {
      const args = axes ? [x, maybeConstant(rng, int64s('axes', axes))] : [x];
      yield m.make({ op: 'Squeeze', label, opset, args, outputs: [type] });
    }
  }
}

function* unsqueeze(rng, m) {
  for (let i = 0; i < 20; ++i) {
    const opset = pick(rng, [11, 13, 21]);
    const rank = randInt(rng, 0, 4);
    const dims = dimsWithZeros(rng, rank);
    const added = randInt(rng, 1, Math.min(3, 8 - rank));
    const outRank = rank + added;
    const axes = shuffle(rng, [...Array(outRank).keys()])
      .slice(0, added)
      .map((a) => (opset >= 11 && chance(rng, 0.4) ? a - outRank : a));
    const type = pick(rng, MOVE_TYPES);
    const x = data(rng, type, dims);
    if (opset < 13)
      yield m.make({ op: 'Unsqueeze', label: `r${rank}`, opset, args: [x], attrs: { axes }, outputs: [type] });
    else
      yield m.make({
        op: 'Unsqueeze',
        label: `r${rank}`,
        opset,
        args: [x, maybeConstant(rng, int64s('axes', axes))],
        outputs: [type],
      });
  }
}

function* flatten(rng, m) {
  for (let i = 0; i < 18; ++i) {
    const opset = pick(rng, [9, 11, 13, 21]);
    const rank = randInt(rng, 0, 4);
    const axis = randInt(rng, opset >= 11 ? -rank : 0, rank);
    const type = pick(rng, MOVE_TYPES);
    const x = data(rng, type, dimsWithZeros(rng, rank));
    const attrs = i % 5 === 0 && rank > 0 ? {} : { axis };
    yield m.make({ op: 'Flatten', label: `r${rank}`, opset, args: [x], attrs, outputs: [type] });
  }
}

function* reshapeIdentity(rng, m) {
  for (let i = 0; i < 12; ++i) {
    const opset = pick(rng, [7, 13, 14, 19, 21]);
    const dims = randomDims(rng, randInt(rng, 1, 4), 1, 4);
    const count = product(dims);
    // A target shape built from a factorisation of the count, with one -1 and (14+) zero entries copied or kept.
    const target = [];
    let rest = count;
    while (rest > 1 && target.length < 4) {
      const f = pick(rng, [2, 3, 4, 5].filter((d) => rest % d === 0).concat([rest]));
      target.push(f);
      rest /= f;
    }
    if (!target.length) target.push(1);
    if (chance(rng, 0.5)) target[randInt(rng, 0, target.length - 1)] = -1;
    const type = pick(rng, MOVE_TYPES);
    const x = data(rng, type, dims);
    yield m.make({
      op: 'Reshape',
      label: 'target',
      opset,
      args: [x, maybeConstant(rng, int64s('shape', target))],
      outputs: [type],
    });
  }
  // Zero entries: copy the input extent (allowzero 0) or mean an empty extent (allowzero 1, opset 14+).
  yield m.make({
    op: 'Reshape',
    label: 'zero-copies',
    opset: 13,
    args: [data(rng, 'float32', [2, 3, 4]), int64s('shape', [0, -1])],
    outputs: ['float32'],
  });
  yield m.make({
    op: 'Reshape',
    label: 'allowzero',
    opset: 14,
    args: [data(rng, 'float32', [0, 3]), constant(int64s('shape', [3, 0]))],
    attrs: { allowzero: 1 },
    outputs: ['float32'],
  });
  yield m.make({
    op: 'Reshape',
    label: 'allowzero',
    opset: 14,
    args: [data(rng, 'int32', [2, 3]), int64s('shape', [0, 3])],
    attrs: { allowzero: 0 },
    outputs: ['int32'],
  });
  for (let i = 0; i < 4; ++i) {
    const type = pick(rng, MOVE_TYPES);
    yield m.make({
      op: 'Identity',
      label: 'copy',
      opset: pick(rng, [13, 14, 16, 21]),
      args: [data(rng, type, dimsWithZeros(rng, randInt(rng, 0, 3)))],
      outputs: [type],
    });
  }
}

function* dropout(rng, m) {
  for (let i = 0; i < 12; ++i) {
    const opset = pick(rng, [7, 10, 12, 13, 22]);
    const type = pick(rng, ['float32', 'float64']);
    const x = data(rng, type, dimsWithZeros(rng, randInt(rng, 0, 3)));
    const withMask = chance(rng, 0.6);
    // The mask is of the input's type before opset 10, bool from 10.
    const maskType = opset < 10 ? type : 'bool';
    const outputs = withMask ? [type, maskType] : [type];
    if (opset < 12) {
      // ONNX Runtime's mask is all false before opset 12; the spec's (and ONNX's reference implementation's) is all
      // true.
      const deviation = withMask && {
        why:
          'ops-shape-indexing.md section 2 (Dropout): at inference the mask is all true; ONNX Runtime ' +
          'returns all false before opset 12',
        expect: [
          { ...x, name: 'y0' },
          { name: 'y1', type: maskType, dims: x.dims, data: typed(maskType, Array(product(x.dims)).fill(1)) },
        ],
      };
      yield m.make({
        op: 'Dropout',
        label: withMask ? 'mask' : 'plain',
        opset,
        args: [x],
        attrs: { ratio: { float: 0.3 } },
        outputs,
        deviation,
      });
    } else {
      const args = [x];
      if (i % 3) args.push(constant(scalar('ratio', type, 0.25)), constant(scalar('training_mode', 'bool', 0)));
      yield m.make({ op: 'Dropout', label: withMask ? 'mask' : 'plain', opset, args, outputs });
    }
  }
}

function* transpose(rng, m) {
  for (let i = 0; i < 34; ++i) {
    const opset = pick(rng, [7, 13, 21]);
    const rank = randInt(rng, 0, 6);
    const dims = rank > 4 ? randomDims(rng, rank, 1, 3) : dimsWithZeros(rng, rank);
    const type = pick(rng, MOVE_TYPES);
    const attrs = i % 6 === 0 ? {} : { perm: shuffle(rng, [...Array(rank).keys()]) };
    yield m.make({ op: 'Transpose', label: `r${rank}`, opset, args: [data(rng, type, dims)], attrs, outputs: [type] });
  }
  // Larger 2-D and 3-D transposes: more than one 32x32 tile, with odd remainders.
  for (const [dims, perm] of [
    [
      [33, 40],
      [1, 0],
    ],
    [
      [3, 17, 35],
      [0, 2, 1],
    ],
    [
      [35, 2, 33],
      [2, 1, 0],
    ],
    [
      [5, 7, 9, 3],
      [3, 1, 2, 0],
    ],
  ]) {
    const type = pick(rng, ['float32', 'int64', 'uint8', 'float16']);
    yield m.make({
      op: 'Transpose',
      label: 'tiles',
      opset: 13,
      args: [data(rng, type, dims)],
      attrs: { perm },
      outputs: [type],
    });
  }
}

function* concat(rng, m) {
  for (let i = 0; i < 26; ++i) {
    const opset = pick(rng, [7, 11, 13]);
    const rank = randInt(rng, 1, 4);
    const base = randomDims(rng, rank, 1, 4);
    const axis = randInt(rng, 0, rank - 1);
    const n = randInt(rng, 1, 4);
    const type = pick(rng, MOVE_TYPES);
    const args = Array.from({ length: n }, (_, k) => {
      const dims = [...base];
      dims[axis] = randInt(rng, chance(rng, 0.2) ? 0 : 1, 4);
      return {
        ...randomTensor(rng, `x${k}`, type, dims, { specials: 0.1 }),
        ...(chance(rng, 0.2) ? { constant: true } : {}),
      };
    });
    const shownAxis = opset >= 11 && chance(rng, 0.4) ? axis - rank : axis;
    yield m.make({ op: 'Concat', label: `n${n}`, opset, args, attrs: { axis: shownAxis }, outputs: [type] });
  }
}

// Split sizes of an extent into n parts (some may be 0).
function splitSizes(rng, extent, n) {
  const cuts = Array.from({ length: n - 1 }, () => randInt(rng, 0, extent)).sort((a, b) => a - b);
  return [...cuts, extent].map((c, k) => c - (k ? cuts[k - 1] : 0));
}

function* split(rng, m) {
  for (let i = 0; i < 32; ++i) {
    const opset = pick(rng, [7, 11, 13, 18, 21]);
    const rank = randInt(rng, 1, 4);
    const dims = randomDims(rng, rank, 1, 4);
    const axis = randInt(rng, 0, rank - 1);
    const n = randInt(rng, 1, 4);
    const type = pick(rng, MOVE_TYPES);
    const explicit = chance(rng, 0.5);
    const attrs = { axis: opset >= 11 && chance(rng, 0.4) ? axis - rank : axis };
    const outputs = Array(n).fill(type);
    if (explicit) {
      dims[axis] = randInt(rng, 0, 9);
      const sizes = splitSizes(rng, dims[axis], n);
      const x = data(rng, type, dims);
      if (opset < 13)
        yield m.make({ op: 'Split', label: 'sizes', opset, args: [x], attrs: { ...attrs, split: sizes }, outputs });
      else
        yield m.make({
          op: 'Split',
          label: 'sizes',
          opset,
          args: [x, maybeConstant(rng, int64s('split', sizes))],
          attrs,
          outputs,
        });
    } else if (opset < 18) {
      dims[axis] = n * randInt(rng, 0, 3);
      yield m.make({ op: 'Split', label: 'equal', opset, args: [data(rng, type, dims)], attrs, outputs });
    } else {
      // From 18: parts of ceil(extent / n), the last one takes the rest.
      dims[axis] = randInt(rng, n, 11);
      const part = Math.ceil(dims[axis] / n);
      if ((n - 1) * part >= dims[axis] && n > 1) dims[axis] = (n - 1) * part + 1;
      yield m.make({
        op: 'Split',
        label: 'num_outputs',
        opset,
        args: [data(rng, type, dims)],
        attrs: { ...attrs, num_outputs: n },
        outputs,
      });
    }
  }
}

// A random Slice bound on an extent n: in range, out of range, or a sentinel.
function sliceBound(rng, n) {
  const r = rng.float();
  if (r < 0.6) return randInt(rng, -n - 2, n + 2);
  return pick(rng, [INT64_MAX, INT64_MIN, INT32_MAX, INT32_MIN, -n - 1, n, 2 * n + 3]);
}
const sliceStep = (rng) =>
  chance(rng, 0.1) ? pick(rng, [INT64_MAX, INT64_MIN, INT32_MAX + 10]) : pick(rng, [1, 1, 2, 3, -1, -1, -2, -3]);

function* slice(rng, m) {
  for (let i = 0; i < 80; ++i) {
    const opset = i < 12 ? 7 : pick(rng, [10, 11, 13]);
    const rank = randInt(rng, 1, 4);
    const dims = randomDims(rng, rank, chance(rng, 0.1) ? 0 : 1, 7);
    const type = pick(rng, MOVE_TYPES);
    const count = randInt(rng, 1, rank);
    const axes = shuffle(rng, [...Array(rank).keys()]).slice(0, count);
    const starts = axes.map((a) => sliceBound(rng, dims[a]));
    const ends = axes.map((a) => sliceBound(rng, dims[a]));
    const x = data(rng, type, dims);
    if (opset < 10) {
      // Attributes (no steps); big bounds as BigInt so they survive the protobuf varint.
      const attrs = { starts: starts.map(BigInt), ends: ends.map(BigInt) };
      if (chance(rng, 0.7) || count !== rank) attrs.axes = axes;
      else {
        attrs.starts = dims.map((_, a) => BigInt(starts[axes.indexOf(a)]));
        attrs.ends = dims.map((_, a) => BigInt(ends[axes.indexOf(a)]));
      }
      yield m.make({ op: 'Slice', label: 'attrs', opset, args: [x], attrs, outputs: [type] });
      continue;
    }
    const steps = axes.map(() => sliceStep(rng));
    const shownAxes = axes.map((a) => (opset >= 11 && chance(rng, 0.3) ? a - rank : a));
    const withSteps = chance(rng, 0.8);
    // starts/ends/axes/steps may be int32 when no bound needs 64 bits (steps are clamped to int32 then).
    const fits32 = [...starts, ...ends].every((v) => typeof v === 'number' || (v >= INT32_MIN && v <= INT32_MAX));
    const index32 = fits32 && chance(rng, 0.3);
    const make = (name, vals) =>
      maybeConstant(rng, index32 ? tensor(name, 'int32', [vals.length], vals.map(Number)) : int64s(name, vals));
    const args = [x, make('starts', starts), make('ends', ends)];
    if (withSteps || chance(rng, 0.5)) args.push(make('axes', shownAxes));
    if (withSteps) {
      if (args.length === 3) args.push(null);
      const steps32 = steps.map((s) => (index32 ? Math.max(INT32_MIN, Math.min(INT32_MAX, Number(s))) : s));
      args.push(make('steps', steps32));
    }
    yield m.make({ op: 'Slice', label: withSteps ? 'steps' : 'inputs', opset, args, outputs: [type] });
  }
  // The sentinels of the spec's section 3, on five elements.
  const five = tensor('x', 'float32', [5], [1, 2, 3, 4, 5]);
  for (const [start, end, step] of [
    [INT64_MAX, INT32_MAX, -1],
    [INT64_MAX, INT64_MAX, -1],
    [INT64_MAX, 100, -1],
    [-1, INT64_MIN, -1],
    [-1, INT32_MIN, -2],
    [4, -6, -1],
    [0, INT64_MAX, 1],
    [INT64_MIN, INT64_MAX, 2],
    [2, 2, 1],
    [3, 1, 1],
    [1, 3, INT64_MAX],
    [3, 0, INT64_MIN],
  ]) {
    yield m.make({
      op: 'Slice',
      label: 'sentinel',
      opset: 13,
      args: [five, int64s('starts', [start]), int64s('ends', [end]), int64s('axes', [0]), int64s('steps', [step])],
      outputs: ['float32'],
    });
  }
}

function* expand(rng, m) {
  for (let i = 0; i < 22; ++i) {
    const opset = pick(rng, [8, 13]);
    const rank = randInt(rng, 0, 4);
    const dims = Array.from({ length: rank }, () => (chance(rng, 0.5) ? 1 : randInt(rng, 0, 4)));
    // Shape: right-aligned, broadcast-compatible both ways (an input extent may exceed a shape entry of 1).
    const shapeRank = randInt(rng, Math.max(0, rank - 2), 5);
    const shape = Array.from({ length: shapeRank }, (_, k) => {
      const d = dims[rank - shapeRank + k];
      if (d === undefined || d === 1) return randInt(rng, 0, 4) || 1;
      return chance(rng, 0.5) ? 1 : d;
    });
    const type = pick(rng, MOVE_TYPES);
    yield m.make({
      op: 'Expand',
      label: `r${rank}-to-r${shapeRank}`,
      opset,
      args: [data(rng, type, dims), maybeConstant(rng, int64s('shape', shape))],
      outputs: [type],
    });
  }
}

function* tile(rng, m) {
  for (let i = 0; i < 16; ++i) {
    const opset = pick(rng, [7, 13]);
    const rank = randInt(rng, 1, 4);
    const dims = dimsWithZeros(rng, rank);
    const repeats = dims.map(() => randInt(rng, 0, 3) || (chance(rng, 0.7) ? 1 : 0));
    const type = pick(rng, MOVE_TYPES);
    yield m.make({
      op: 'Tile',
      label: `r${rank}`,
      opset,
      args: [data(rng, type, dims), maybeConstant(rng, int64s('repeats', repeats))],
      outputs: [type],
    });
  }
}

function* gather(rng, m) {
  for (let i = 0; i < 32; ++i) {
    const opset = pick(rng, [7, 11, 13]);
    const rank = randInt(rng, 1, 4);
    const dims = randomDims(rng, rank, 1, 5);
    const axis = randInt(rng, 0, rank - 1);
    const n = dims[axis];
    const indexRank = randInt(rng, 0, 2);
    const indexDims = randomDims(rng, indexRank, chance(rng, 0.1) ? 0 : 1, 4);
    const lo = opset >= 11 ? -n : 0;
    const indexType = pick(rng, ['int64', 'int32']);
    const indices = tensor(
      'indices',
      indexType,
      indexDims,
      values(rng, indexType, product(indexDims), { lo, hi: n - 1 }),
    );
    const type = pick(rng, MOVE_TYPES);
    const shownAxis = opset >= 11 && chance(rng, 0.3) ? axis - rank : axis;
    yield m.make({
      op: 'Gather',
      label: `r${rank}-i${indexRank}`,
      opset,
      args: [data(rng, type, dims), maybeConstant(rng, indices)],
      attrs: { axis: shownAxis },
      outputs: [type],
    });
  }
}

function* gatherElements(rng, m) {
  for (let i = 0; i < 22; ++i) {
    const opset = pick(rng, [11, 13]);
    const rank = randInt(rng, 1, 4);
    const dims = randomDims(rng, rank, 1, 5);
    const axis = randInt(rng, 0, rank - 1);
    // Indices: any extent on the axis, at most the data's elsewhere.
    const indexDims = dims.map((d, a) => (a === axis ? randInt(rng, 0, 5) : randInt(rng, Math.min(1, d), d)));
    const indexType = pick(rng, ['int64', 'int32']);
    const indices = tensor(
      'indices',
      indexType,
      indexDims,
      values(rng, indexType, product(indexDims), { lo: -dims[axis], hi: dims[axis] - 1 }),
    );
    const type = pick(rng, MOVE_TYPES);
    const shownAxis = chance(rng, 0.3) ? axis - rank : axis;
    yield m.make({
      op: 'GatherElements',
      label: `r${rank}`,
      opset,
      args: [data(rng, type, dims), indices],
      attrs: { axis: shownAxis },
      outputs: [type],
    });
  }
}

// Index tuples for GatherND/ScatterND over `dims` (last index extent = tupleLength), negative allowed.
function ndIndices(rng, dims, batchDims, lead, tupleLength, { unique = false, negative = true } = {}) {
  const tuples = [];
  const batchCount = product(dims.slice(0, batchDims));
  const perBatch = product(lead);
  const space = dims.slice(batchDims, batchDims + tupleLength);
  for (let b = 0; b < batchCount; ++b) {
    const pool = shuffle(rng, [...Array(product(space)).keys()]);
    for (let k = 0; k < perBatch; ++k) {
      const flat = unique ? pool[k % pool.length] : randInt(rng, 0, product(space) - 1);
      const tuple = unravel(flat, space).map((v, a) => (negative && chance(rng, 0.3) ? v - space[a] : v));
      tuples.push(...tuple);
    }
  }
  return tuples;
}

function* gatherNd(rng, m) {
  for (let i = 0; i < 22; ++i) {
    const opset = pick(rng, [11, 12, 13]);
    const batchDims = opset >= 12 ? randInt(rng, 0, 2) : 0;
    const rank = randInt(rng, batchDims + 1, batchDims + 3);
    const dims = randomDims(rng, rank, 1, 4);
    const tupleLength = randInt(rng, 1, rank - batchDims);
    const lead = randomDims(rng, randInt(rng, 0, 2), 1, 3);
    const indexDims = [...dims.slice(0, batchDims), ...lead, tupleLength];
    const indices = int64s('indices', ndIndices(rng, dims, batchDims, lead, tupleLength), indexDims);
    const type = pick(rng, MOVE_TYPES);
    const attrs = opset >= 12 ? { batch_dims: batchDims } : {};
    yield m.make({
      op: 'GatherND',
      label: `b${batchDims}-t${tupleLength}`,
      opset,
      args: [data(rng, type, dims), maybeConstant(rng, indices)],
      attrs,
      outputs: [type],
    });
  }
}

function* scatterNd(rng, m) {
  const reductions = [
    ['none', 11],
    ['none', 13],
    ['none', 18],
    ['add', 16],
    ['mul', 16],
    ['add', 18],
    ['max', 18],
    ['min', 18],
  ];
  for (let i = 0; i < 40; ++i) {
    const [reduction, opset] = reductions[i % reductions.length];
    const rank = randInt(rng, 1, 3);
    const dims = randomDims(rng, rank, 1, 4);
    const tupleLength = randInt(rng, 1, rank);
    const lead = randomDims(rng, randInt(rng, 1, 2), 1, 3);
    // Reductions fold duplicates in index order; plain writes get unique indices (ONNX leaves duplicates undefined).
    const unique = reduction === 'none';
    const tupleCount = product(lead);
    if (unique && tupleCount > product(dims.slice(0, tupleLength)))
      lead.splice(0, lead.length, product(dims.slice(0, tupleLength)));
    const indices = int64s('indices', ndIndices(rng, dims, 0, lead, tupleLength, { unique }), [...lead, tupleLength]);
    const type =
      reduction === 'none' ? pick(rng, MOVE_TYPES) : pick(rng, ['float32', 'float32', 'float64', 'int32', 'int64']);
    const opts =
      reduction === 'max' || reduction === 'min' ? { specials: 0.15, ties: chance(rng, 0.5) } : { specials: 0.05 };
    const updates = randomTensor(rng, 'updates', type, [...lead, ...dims.slice(tupleLength)], opts);
    const attrs = opset >= 16 ? { reduction } : {};
    yield m.make({
      op: 'ScatterND',
      label: reduction,
      opset,
      args: [data(rng, type, dims, opts), indices, updates],
      attrs,
      outputs: [type],
    });
  }
}

const PAD_TYPES = ['float32', 'float64', 'float16', 'int8', 'uint8', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

function* pad(rng, m) {
  const modes = ['constant', 'edge', 'reflect'];
  for (let i = 0; i < 60; ++i) {
    const opset = pick(rng, [7, 11, 13, 18, 19, 21]);
    const mode = pick(rng, opset >= 19 ? [...modes, 'wrap'] : modes);
    const rank = randInt(rng, 1, 4);
    const dims = randomDims(rng, rank, mode === 'constant' && chance(rng, 0.2) ? 0 : 2, 5);
    // Pads within ONNX Runtime's reflect limit (< extent); negative ones crop.
    const padOf = (n) =>
      mode === 'constant' || mode === 'edge' ? randInt(rng, -1, 3) : randInt(rng, mode === 'reflect' ? 0 : -1, n - 1);
    // bool: constant mode, from opset 18 in ONNX Runtime.
    const type = pick(
      rng,
      PAD_TYPES.filter((t) => t !== 'bool' || (mode === 'constant' && opset >= 18)),
    );
    const x = data(rng, type, dims);
    const axes =
      opset >= 18 && chance(rng, 0.4) ? shuffle(rng, [...Array(rank).keys()]).slice(0, randInt(rng, 1, rank)) : null;
    const padded = axes ?? [...Array(rank).keys()];
    const begins = padded.map((a) => padOf(dims[a]));
    const ends = padded.map((a) => padOf(dims[a]));
    // Cropping must leave a non-negative extent, and (modes that read the input) at least one input element.
    padded.forEach((a, k) => {
      while (dims[a] + begins[k] + ends[k] < 0) ++ends[k];
      if (mode !== 'constant') while (dims[a] + Math.min(begins[k], 0) + Math.min(ends[k], 0) < 1) ++ends[k];
    });
    const pads = [...begins, ...ends];
    const value = isFloat(type) ? pick(rng, [1.5, -2, NaN, -0]) : type === 'bool' ? 1 : 7;
    if (opset < 11) {
      if (!isFloat(type) || type === 'float16') continue;
      const attrs = { mode, pads };
      if (mode === 'constant' && chance(rng, 0.6)) attrs.value = { float: Number.isNaN(value) ? 3.25 : value };
      yield m.make({ op: 'Pad', label: mode, opset, args: [x], attrs, outputs: [type] });
      continue;
    }
    const args = [x, maybeConstant(rng, int64s('pads', pads))];
    if (mode === 'constant' && chance(rng, 0.6)) args.push(maybeConstant(rng, scalar('constant_value', type, value)));
    if (axes) {
      if (args.length === 2) args.push(null);
      args.push(
        maybeConstant(
          rng,
          int64s(
            'axes',
            axes.map((a) => (chance(rng, 0.3) ? a - rank : a)),
          ),
        ),
      );
    }
    yield m.make({ op: 'Pad', label: mode, opset, args, attrs: { mode }, outputs: [type] });
  }
  // A crop on one side and padding on the other: the mode acts on what the crop leaves (a wrap period is the cropped
  // extent).
  for (const [dims, pads, mode] of [
    [[4], [-1, 2], 'wrap'],
    [[5], [2, -3], 'wrap'],
    [[2, 4], [0, -1, 1, 3], 'wrap'],
    [[3, 5], [-1, 2, 2, -2], 'wrap'],
    [[5], [-2, 2], 'reflect'],
    [[4, 3], [-1, 1, 2, -1], 'edge'],
  ]) {
    const x = data(rng, 'float32', dims);
    const args = [x, constant(int64s('pads', pads))];
    yield m.make({ op: 'Pad', label: `crop-${mode}`, opset: 19, args, attrs: { mode }, outputs: ['float32'] });
  }
  // Reflect beyond one period and on an extent of 1: ONNX Runtime refuses both; the spec continues periodically.
  for (const [dims, pads] of [
    [[3], [5, 7]],
    [[2], [3, 4]],
    [[1], [2, 3]],
    [
      [2, 3],
      [0, 4, 3, 5],
    ],
    [
      [4, 1],
      [6, 2, 7, 1],
    ],
    [
      [3, 2],
      [-1, 3, 2, 2],
    ],
  ]) {
    const x = data(rng, 'float32', dims, { specials: 0.1 });
    const expect = padReference(x, pads, 'reflect');
    yield m.make({
      op: 'Pad',
      label: 'reflect-periodic',
      opset: 13,
      args: [x, constant(int64s('pads', pads))],
      attrs: { mode: 'reflect' },
      outputs: ['float32'],
      ort: false,
      deviation: {
        why:
          'ops-shape-indexing.md section 4: reflect continues periodically (period 2*(n-1), extent 1 repeats) ' +
          'on what negative pads leave; ONNX Runtime refuses pads >= n and extent 1',
        expect: [{ name: 'y0', ...expect }],
      },
    });
  }
}

// ConstantOfShape's value attribute is a one-element tensor of any stored type.
function* constantOfShape(rng, m) {
  const valueTypes = [
    'float32',
    'float64',
    'int32',
    'int64',
    'int8',
    'uint8',
    'bool',
    'float16',
    'int16',
    'uint16',
    'uint32',
    'uint64',
  ];
  for (let i = 0; i < 14; ++i) {
    const opset = pick(rng, [9, 20, 21]);
    const shape = randomDims(rng, randInt(rng, 0, 3), chance(rng, 0.15) ? 0 : 1, 4);
    const type = i < 2 ? 'float32' : pick(rng, valueTypes);
    const value = tensor('value', type, [1], values(rng, type, 1, { specials: 0.2 }));
    const attrs = i < 2 ? {} : { value: { tensor: protoTensor(value.name, type, value.dims, value.data) } };
    yield m.make({
      op: 'ConstantOfShape',
      label: type,
      opset,
      args: [maybeConstant(rng, int64s('shape', shape))],
      attrs,
      outputs: [type],
    });
  }
}

function* range(rng, m) {
  const crafted = [
    ['float32', 0, 0.3, 0.1],
    ['float32', 1, 0, -0.25],
    ['float32', 0.5, 0.5, 1],
    ['float32', -3, 7.5, 1.7],
    ['float64', 0, 0.3, 0.1],
    ['float64', 10, -10, -3.3],
    ['int32', 0, 10, 3],
    ['int32', 10, 0, -4],
    ['int32', 5, 5, 2],
    ['int64', -7, 20, 5],
    ['int64', 3, 4, 10],
    ['int16', -5, 5, 2],
    ['int32', 0, -3, 1],
  ];
  const random = Array.from({ length: 12 }, () => {
    const type = pick(rng, ['float32', 'float64', 'int32', 'int64']);
    const float = isFloat(type);
    const start = float ? (rng.float() - 0.5) * 20 : randInt(rng, -20, 20);
    const delta = (float ? rng.float() * 3 + 0.05 : randInt(rng, 1, 5)) * (chance(rng, 0.3) ? -1 : 1);
    const limit = start + delta * (float ? rng.float() * 30 - 3 : randInt(rng, -3, 30));
    return [type, start, limit, delta];
  });
  for (const [type, start, limit, delta] of [...crafted, ...random]) {
    const args = [scalar('start', type, start), scalar('limit', type, limit), scalar('delta', type, delta)];
    // Float elements: the spec's start + i*delta, where ONNX Runtime's last bits differ (it accumulates).
    const deviation = isFloat(type) && {
      why:
        'ops-shape-indexing.md section 2 (Range): element i = start + i*delta in the element type; ONNX ' +
        'Runtime adds delta repeatedly',
      expect: [{ name: 'y0', ...rangeReference(type, ...args.map((t) => numbers(type, t.data)[0])) }],
    };
    yield m.make({
      op: 'Range',
      label: type,
      opset: 11,
      args: args.map((t) => maybeConstant(rng, t)),
      outputs: [type],
      deviation,
    });
  }
}

// The (indices, depth, values) type combinations ONNX Runtime implements.
const ONE_HOT_TYPES = [
  ['int64', 'int64', 'float32'],
  ['int64', 'int64', 'int64'],
  ['int64', 'int32', 'float32'],
  ['int64', 'float32', 'float32'],
  ['int64', 'float32', 'int32'],
  ['int32', 'int32', 'float32'],
  ['int32', 'float32', 'float32'],
  ['float32', 'int64', 'int64'],
  ['float32', 'float32', 'float32'],
];

function* oneHot(rng, m) {
  for (let i = 0; i < 24; ++i) {
    const opset = pick(rng, [9, 11]);
    const depth = randInt(rng, 1, 6);
    const [indexType, depthType, valueType] = pick(rng, ONE_HOT_TYPES);
    const rank = randInt(rng, 1, 3);
    const indexDims = randomDims(rng, rank, 1, 4);
    const lo = opset >= 11 ? -depth - 1 : 0;
    const raw = values(rng, 'int32', product(indexDims), { lo, hi: depth + 1 });
    const indices = tensor('indices', indexType, indexDims, raw);
    const axis = randInt(rng, opset >= 11 ? -rank - 1 : -1, rank);
    const vals = tensor('values', valueType, [2], values(rng, valueType, 2, {}));
    const attrs = i % 4 === 0 ? {} : { axis };
    yield m.make({
      op: 'OneHot',
      label: `r${rank}`,
      opset,
      args: [indices, maybeConstant(rng, scalar('depth', depthType, depth)), vals],
      attrs,
      outputs: [valueType],
    });
  }
  // A fractional depth counts as its integer part.
  for (const depth of [3.7, 1.2]) {
    const indices = tensor('indices', 'int64', [4], [0, 1, 2, -1]);
    const args = [indices, scalar('depth', 'float32', depth), tensor('values', 'float32', [2], [-1, 2])];
    yield m.make({ op: 'OneHot', label: 'fractional-depth', opset: 11, args, outputs: ['float32'] });
  }
  // A rank-0 index: ONNX Runtime refuses it, the spec serves it (a one-dimensional one-hot row).
  for (const [index, depth] of [
    [2, 4],
    [-1, 3],
    [5, 3],
  ]) {
    const onOff = [0, 1];
    const expect = Array.from({ length: depth }, (_, j) =>
      (index < 0 ? index + depth : index) === j ? onOff[1] : onOff[0],
    );
    yield m.make({
      op: 'OneHot',
      label: 'rank0',
      opset: 11,
      args: [
        scalar('indices', 'int64', index),
        constant(scalar('depth', 'int64', depth)),
        tensor('values', 'float32', [2], onOff),
      ],
      outputs: ['float32'],
      ort: false,
      deviation: {
        why: 'ops-shape-indexing.md section 2 (OneHot): rank-0 indices give a [depth] row; ONNX Runtime refuses them',
        expect: [{ name: 'y0', type: 'float32', dims: [depth], data: typed('float32', expect) }],
      },
    });
  }
}

function* trilu(rng, m) {
  for (let i = 0; i < 22; ++i) {
    const rank = randInt(rng, 2, 4);
    const dims = randomDims(rng, rank, chance(rng, 0.1) ? 0 : 1, 6);
    const type = pick(rng, ['float32', 'float64', 'float16', 'int32', 'int64', 'bool']);
    const args = [data(rng, type, dims)];
    if (i % 4) args.push(maybeConstant(rng, scalar('k', 'int64', randInt(rng, -7, 7))));
    const attrs = chance(rng, 0.7) ? { upper: randInt(rng, 0, 1) } : {};
    yield m.make({ op: 'Trilu', label: `r${rank}`, opset: 14, args, attrs, outputs: [type] });
  }
}

function* nonZero(rng, m) {
  for (let i = 0; i < 18; ++i) {
    const opset = pick(rng, [9, 13]);
    const rank = randInt(rng, 0, 4);
    const dims = dimsWithZeros(rng, rank);
    const type = pick(rng, ['float32', 'float16', 'int32', 'int64', 'uint8', 'bool']);
    // Plenty of zeros (and -0, NaN for floats).
    const vals = values(rng, type, product(dims), { ties: true }).map((v) => (chance(rng, 0.3) ? 0 : v));
    if (isFloat(type)) vals.forEach((_, k) => chance(rng, 0.1) && (vals[k] = pick(rng, [-0, NaN, 1e-40])));
    yield m.make({
      op: 'NonZero',
      label: `r${rank}`,
      opset,
      args: [tensor('x', type, dims, vals)],
      outputs: ['int64'],
    });
  }
  // No non-zero element: a [rank, 0] result.
  for (const dims of [[2, 3], [4]]) {
    const x = tensor('x', 'float32', dims, Array(product(dims)).fill(-0));
    yield m.make({ op: 'NonZero', label: 'none', opset: 13, args: [x], outputs: ['int64'] });
  }
}

// Shape arithmetic chains the plan folds into constants (Shape -> Gather -> Unsqueeze -> Concat -> Reshape and
// friends), with the data as a run-time input.
function* chains(rng, m) {
  const node = (op, inputs, outputs, attrs = {}) => ({ op, inputs, outputs, attrs });
  for (let i = 0; i < 4; ++i) {
    const dims = randomDims(rng, 3, 1, 5);
    const x = data(rng, 'float32', dims);
    const axis = randInt(rng, -3, 2);
    yield m.make({
      op: 'Reshape',
      label: 'shape-chain',
      opset: 13,
      args: [x, constant(scalar('i', 'int64', axis)), constant(int64s('axes', [0])), constant(int64s('rest', [-1]))],
      nodes: [
        node('Shape', ['x'], ['s']),
        node('Gather', ['s', 'i'], ['d']),
        node('Unsqueeze', ['d', 'axes'], ['u']),
        node('Concat', ['u', 'rest'], ['target'], { axis: 0 }),
        node('Reshape', ['x', 'target'], ['y0']),
      ],
      outputs: ['float32'],
    });
  }
  for (let i = 0; i < 3; ++i) {
    const dims = randomDims(rng, 3, 1, 4);
    const x = data(rng, 'float32', dims);
    const value = tensor('value', 'int32', [1], [randInt(rng, -5, 5)]);
    yield m.make({
      op: 'ConstantOfShape',
      label: 'shape-chain',
      opset: 15,
      args: [x],
      nodes: [
        node('Shape', ['x'], ['s'], { start: randInt(rng, -3, 1) }),
        node('ConstantOfShape', ['s'], ['y0'], { value: { tensor: protoTensor('value', 'int32', [1], value.data) } }),
      ],
      outputs: ['int32'],
    });
  }
  for (let i = 0; i < 3; ++i) {
    const dims = randomDims(rng, 2, 1, 6);
    const x = data(rng, 'float32', dims, { ties: true });
    yield m.make({
      op: 'TopK',
      label: 'shape-chain',
      opset: 13,
      args: [x, constant(int64s('last', [-1]))],
      nodes: [
        node('Shape', ['x'], ['s']),
        node('Gather', ['s', 'last'], ['k']),
        node('TopK', ['x', 'k'], ['y0', 'y1']),
      ],
      outputs: ['float32', 'int64'],
    });
  }
  for (let i = 0; i < 2; ++i) {
    const x = data(rng, 'float32', randomDims(rng, 2, 1, 4));
    yield m.make({
      op: 'Range',
      label: 'shape-chain',
      opset: 13,
      args: [x, constant(scalar('zero', 'int64', 0)), constant(scalar('step', 'int64', randInt(rng, 1, 3)))],
      nodes: [node('Size', ['x'], ['n']), node('Range', ['zero', 'n', 'step'], ['y0'])],
      outputs: ['int64'],
    });
  }
  for (let i = 0; i < 2; ++i) {
    const a = randomTensor(rng, 'a', 'float32', [1, randInt(rng, 1, 3)], { specials: 0.1 });
    const b = randomTensor(rng, 'b', 'int64', [randInt(rng, 1, 4), a.dims[1]], {});
    yield m.make({
      op: 'Expand',
      label: 'shape-chain',
      opset: 13,
      args: [a, b],
      nodes: [node('Shape', ['b'], ['s']), node('Expand', ['a', 's'], ['y0'])],
      outputs: ['float32'],
    });
  }
}

function* topK(rng, m) {
  for (let i = 0; i < 50; ++i) {
    const opset = pick(rng, [7, 10, 11, 11]);
    const rank = randInt(rng, 1, 3);
    const dims = randomDims(rng, rank, 1, 6);
    const axis = randInt(rng, 0, rank - 1);
    // Long rows now and then: k above 16 takes the merge-sort path.
    if (i % 5 === 0) dims[axis] = randInt(rng, 17, 70);
    const n = dims[axis];
    const k = pick(rng, [opset < 10 ? 1 : 0, 1, randInt(rng, 1, n), n, Math.min(n, 17)]);
    const type =
      opset < 11 ? 'float32' : pick(rng, ['float32', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'int16']);
    // Ties (small integers) and, for floats, infinities and signed zeros (equal to each other: input order).
    const x = data(rng, type, dims, { ties: chance(rng, 0.6), specials: i % 4 === 3 ? 0.2 : 0, noNaN: true });
    const attrs = { axis: opset >= 10 && chance(rng, 0.3) ? axis - rank : axis };
    const largest = opset >= 11 && chance(rng, 0.5) ? 0 : 1;
    if (opset >= 11) {
      attrs.largest = largest;
      if (chance(rng, 0.5)) attrs.sorted = 1;
    }
    const outputs = [type, 'int64'];
    const label = `${largest ? 'largest' : 'smallest'}`;
    if (opset < 10) yield m.make({ op: 'TopK', label, opset, args: [x], attrs: { ...attrs, k }, outputs });
    else yield m.make({ op: 'TopK', label, opset, args: [x, maybeConstant(rng, int64s('k', [k]))], attrs, outputs });
  }
  // NaN: the spec orders it above every number; ONNX Runtime's placement depends on its code path.
  for (let i = 0; i < 10; ++i) {
    const dims = [randInt(rng, 1, 3), randInt(rng, 2, 20)];
    const k = randInt(rng, 1, dims[1]);
    const largest = i % 2;
    const x = data(rng, 'float32', dims, { ties: true, specials: 0 });
    const vals = numbers('float32', x.data);
    vals.forEach((_, j) => chance(rng, 0.25) && (vals[j] = NaN));
    x.data = typed('float32', vals);
    const [topValues, topIndices] = topKReference(vals, dims, k, largest);
    yield m.make({
      op: 'TopK',
      label: 'nan',
      opset: 11,
      args: [x, constant(int64s('k', [k]))],
      attrs: { axis: 1, largest },
      outputs: ['float32', 'int64'],
      deviation: {
        why:
          'ops-shape-indexing.md section 5: NaN ranks above every number, ties keep input order; ONNX ' +
          'Runtime places NaN by code path',
        expect: [
          { name: 'y0', type: 'float32', dims: [dims[0], k], data: typed('float32', topValues) },
          { name: 'y1', type: 'int64', dims: [dims[0], k], data: typed('int64', topIndices) },
        ],
      },
    });
  }
}

// --- References for the deviations ---

// TopK along the last axis of a 2-D row set: stable, NaN above every number.
function topKReference(vals, [rows, n], k, largest) {
  const outValues = [];
  const outIndices = [];
  const rank = (v) => (Number.isNaN(v) ? Infinity : v);
  for (let r = 0; r < rows; ++r) {
    const order = [...Array(n).keys()].sort((a, b) => {
      const va = vals[r * n + a];
      const vb = vals[r * n + b];
      const na = Number.isNaN(va);
      const nb = Number.isNaN(vb);
      if (na || nb) {
        if (na && nb) return a - b;
        return largest ? (na ? -1 : 1) : na ? 1 : -1;
      }
      if (va !== vb) return largest ? rank(vb) - rank(va) : rank(va) - rank(vb);
      return a - b;
    });
    for (const j of order.slice(0, k)) {
      outValues.push(vals[r * n + j]);
      outIndices.push(j);
    }
  }
  return [outValues, outIndices];
}

// Range of float values as the spec defines it: count from the quotient in double precision, element i computed as
// start + i*delta with each operation rounded to the element type.
function rangeReference(type, start, limit, delta) {
  const round = type === 'float32' ? Math.fround : (v) => v;
  const count = Math.max(Math.ceil((limit - start) / delta), 0);
  const vals = Array.from({ length: count }, (_, i) => round(start + round(i * delta)));
  return { type, dims: [count], data: typed(type, vals) };
}

// Pad in any non-constant mode, with the spec's periodic reflection. Negative pads crop first; the mode then
// acts on the kept window [lo, lo + n) of each axis.
function padReference(x, pads, mode) {
  const rank = x.dims.length;
  const outDims = x.dims.map((d, a) => d + pads[a] + pads[a + rank]);
  const inStrides = strides(x.dims);
  const source = (i, n) => {
    if (mode === 'edge') return Math.min(Math.max(i, 0), n - 1);
    if (mode === 'wrap') return ((i % n) + n) % n;
    if (n === 1) return 0;
    const period = 2 * (n - 1);
    const t = ((i % period) + period) % period;
    return t < n ? t : period - t;
  };
  const out = new x.data.constructor(product(outDims));
  for (let o = 0; o < out.length; ++o) {
    const index = unravel(o, outDims);
    let offset = 0;
    index.forEach((v, a) => {
      const lo = Math.max(0, -pads[a]);
      const kept = x.dims[a] - lo - Math.max(0, -pads[a + rank]);
      offset += (lo + source(v - pads[a] - lo, kept)) * inStrides[a];
    });
    out[o] = x.data[offset];
  }
  return { type: x.type, dims: outDims, data: out };
}
