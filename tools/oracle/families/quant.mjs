// Oracle cases of the quantized operators (spec: int8.md "Operators"): QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear over every served type, per tensor and per axis, with NaN, infinities, huge and subnormal
// inputs and exact ties for round-half-even; MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv over uint8
// and int8 mixes, scalar and vector zero points and scales, odd sizes, padding, strides, dilations and groups.
// Every output is checked bit for bit in both modes: the integer parts are exact and the float parts are single
// correctly rounded operations.

import { f16Bits, f16Value, f32 } from '../lib.mjs';

const product = (dims) => dims.reduce((a, b) => a * b, 1);
const base = { check: 'bits', exact: true };
const out = (name, type) => ({ name, type });

const INT_RANGE = { uint8: [0, 255], int8: [-128, 127], uint16: [0, 65535], int16: [-32768, 32767],
  int32: [-2147483648, 2147483647] };
const INT_ARRAY = { uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array, int32: Int32Array };

function ints(rng, type, n, lo = INT_RANGE[type][0], hi = INT_RANGE[type][1]) {
  return INT_ARRAY[type].from({ length: n }, () => rng.int(lo, hi));
}
function t(name, type, dims, data) {
  return { name, type, dims, data };
}
// A float tensor of `type` ('float32' or 'float16') from real values.
function floats(type, values) {
  return type === 'float16' ? Uint16Array.from(values, f16Bits) : Float32Array.from(values, f32);
}
// The real value of a float scale as the operator reads it.
const realOf = (type, v) => (type === 'float16' ? f16Value(f16Bits(v)) : f32(v));

// A positive scale: mostly moderate, sometimes a power of two (exact ties), tiny, huge or subnormal.
function randomScale(rng, kind = rng.pick(['normal', 'normal', 'normal', 'pow2', 'small', 'large'])) {
  switch (kind) {
    case 'pow2': return 2 ** rng.int(-6, 3);
    case 'small': return rng.uniform(1e-6, 1e-3);
    case 'large': return rng.uniform(10, 1000);
    case 'subnormal': return 2 ** -140;
    case 'tiny': return 1e-30;
    case 'huge': return 1e30;
    default: return rng.uniform(0.001, 0.2);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Reference rules of int8.md, for the documented deviations.

function roundHalfEven(v) {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
// clamp(round_half_even(x / scale) + zp) with a float32 division; NaN gives the type's minimum.
function quantizeRule(x, scale, zp, type) {
  const [lo, hi] = INT_RANGE[type];
  const q = f32(x / scale);
  if (Number.isNaN(q)) return lo;
  return Math.min(hi, Math.max(lo, roundHalfEven(q) + zp));
}

// ---------------------------------------------------------------------------------------------------------------------
// QuantizeLinear

const SPECIAL_X = [NaN, Infinity, -Infinity, 0, -0, 3e38, -3e38, 1e10, -1e10, 2 ** -149, -(2 ** -149), 2 ** -126];

// x values for a scale: ordinary values around the output range, exact ties (k + 1/2) * scale when the scale is a
// power of two, and specials.
function quantizeInputs(rng, n, scale, xType, withSpecials, ties) {
  const values = [];
  for (let i = 0; i < n; ++i) {
    const r = rng.float();
    if (withSpecials && r < 0.2) values.push(rng.pick(SPECIAL_X));
    else if (ties && r < 0.6) values.push((rng.int(-300, 300) + 0.5) * scale);
    else values.push(rng.uniform(-300, 300) * scale * (rng.bool(0.2) ? 300 : 1));
  }
  return floats(xType, values);
}

function quantizeCase(rng, index, opts) {
  const { opset, xType = 'float32', yType = 'uint8', perAxis = false, withZp = true, withSpecials = false,
    ties = false, outputDtype = false, scaleKind, zpInput = false } = opts;
  const rank = perAxis ? rng.int(1, 4) : rng.int(0, 3);
  const dims = Array.from({ length: rank }, () => rng.int(1, 6));
  if (!perAxis && rank > 0 && rng.bool(0.3)) dims[rank - 1] = rng.pick([15, 17, 33, 64]);
  const axis = perAxis ? rng.int(-rank, rank - 1) : 1;
  const channels = perAxis ? dims[axis < 0 ? axis + rank : axis] : 1;
  const pow2 = ties || scaleKind === 'pow2';
  const scales = Array.from({ length: channels }, () => realOf(xType, randomScale(rng, pow2 ? 'pow2' : scaleKind)));
  const [lo, hi] = INT_RANGE[yType];
  const zps = Array.from({ length: channels }, () => (rng.bool(0.2) ? (lo < 0 ? 0 : lo) : rng.int(lo, hi)));
  const scaleDims = perAxis ? [channels] : (rng.bool(0.3) ? [1] : []);
  const n = product(dims);
  const x = quantizeInputs(rng, n, scales[0], xType, withSpecials, ties);
  const attrs = {};
  if (perAxis || (opset >= 13 && rng.bool(0.3))) attrs.axis = axis;
  if (outputDtype) attrs.output_dtype = { uint8: 2, int8: 3, uint16: 4, int16: 5 }[yType];
  const inputs = [t('x', xType, dims, x)];
  const initializers = [];
  const scaleTensor = t('s', xType === 'float16' ? 'float16' : 'float32', scaleDims,
    floats(xType === 'float16' ? 'float16' : 'float32', scales));
  const zpTensor = t('z', yType, scaleDims, INT_ARRAY[yType].from(zps));
  (zpInput ? inputs : initializers).push(scaleTensor);
  if (withZp) (zpInput ? inputs : initializers).push(zpTensor);
  // ONNX Runtime's float16 path does not saturate infinities (+inf into uint8 gives 0, -inf into int8 gives 127).
  const values = xType === 'float16' ? Array.from(x, f16Value) : Array.from(x);
  const deviation = xType === 'float16' && values.some((v) => Math.abs(v) === Infinity) ? {
    why: 'QuantizeLinear clamps infinities to the type\'s extremes (int8.md "Operators"); ONNX Runtime\'s float16 path ' +
      'does not',
    expect: [t('y', yType, dims, INT_ARRAY[yType].from(values, (v, i) => {
      const c = perAxis ? Math.floor(i / product(dims.slice((axis < 0 ? axis + rank : axis) + 1))) % channels : 0;
      return quantizeRule(v, scales[c], withZp ? zps[c] : 0, yType);
    }))],
  } : undefined;
  const spec = {
    ...base,
    deviation,
    id: `QuantizeLinear/${index}/${xType}-${yType}/${perAxis ? `axis${axis}` : 'tensor'}${withZp ? '' : '/nozp'}` +
      `${withSpecials ? '/specials' : ''}${ties ? '/ties' : ''}${scaleKind ? `/${scaleKind}` : ''}` +
      `${outputDtype ? '/output_dtype' : ''}${zpInput ? '/runtime-params' : ''}/opset${opset}`,
    opset,
    nodes: [{ op: 'QuantizeLinear', inputs: withZp ? ['x', 's', 'z'] : ['x', 's'], outputs: ['y'], attrs }],
    inputs,
    initializers,
    outputs: [out('y', yType)],
  };
  return spec;
}

function* quantizeCases(rng) {
  let i = 0;
  for (let k = 0; k < 8; ++k) {
    for (const yType of ['uint8', 'int8']) {
      yield quantizeCase(rng, i++, { opset: 10, yType });
      yield quantizeCase(rng, i++, { opset: 13, yType, perAxis: true });
      yield quantizeCase(rng, i++, { opset: 13, yType, ties: true, perAxis: k % 2 === 0 });
    }
  }
  for (let k = 0; k < 6; ++k) {
    for (const yType of ['uint8', 'int8']) {
      yield quantizeCase(rng, i++, { opset: rng.pick([10, 13, 19, 21]), yType, withSpecials: true });
      yield quantizeCase(rng, i++, { opset: 19, yType, xType: 'float16', perAxis: k % 2 === 1, ties: k % 3 === 0 });
    }
    for (const yType of ['uint16', 'int16']) {
      yield quantizeCase(rng, i++, { opset: 21, yType });
      yield quantizeCase(rng, i++, { opset: 21, yType, perAxis: true, ties: k % 2 === 0 });
      yield quantizeCase(rng, i++, { opset: 21, yType, withSpecials: true });
    }
  }
  for (const scaleKind of ['small', 'large', 'subnormal', 'tiny', 'huge']) {
    yield quantizeCase(rng, i++, { opset: 13, yType: 'uint8', scaleKind, withSpecials: true });
    yield quantizeCase(rng, i++, { opset: 21, yType: 'int16', scaleKind });
  }
  for (const yType of ['uint8', 'int8', 'uint16', 'int16']) {
    yield quantizeCase(rng, i++, { opset: 21, yType, withZp: false, outputDtype: true });
  }
  for (const opset of [10, 13, 19, 21]) yield quantizeCase(rng, i++, { opset, withZp: false });
  for (let k = 0; k < 4; ++k) {
    yield quantizeCase(rng, i++, { opset: 13, yType: k % 2 ? 'int8' : 'uint8', zpInput: true, perAxis: k > 1 });
    yield quantizeCase(rng, i++, { opset: 19, yType: 'int8', xType: 'float16', withSpecials: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// DequantizeLinear

function dequantizeCase(rng, index, opts) {
  const { opset, xType = 'uint8', scaleType = 'float32', perAxis = false, withZp = true, scaleKind,
    zpInput = false, extremes = false } = opts;
  const rank = perAxis ? rng.int(1, 4) : rng.int(0, 3);
  const dims = Array.from({ length: rank }, () => rng.int(1, 6));
  if (!perAxis && rank > 0 && rng.bool(0.3)) dims[rank - 1] = rng.pick([15, 17, 33, 64]);
  const axis = perAxis ? rng.int(-rank, rank - 1) : 1;
  const channels = perAxis ? dims[axis < 0 ? axis + rank : axis] : 1;
  const scales = Array.from({ length: channels }, () => randomScale(rng, scaleKind));
  const [lo, hi] = INT_RANGE[xType];
  // ONNX Runtime requires a zero zero point for int32.
  const zps = Array.from({ length: channels }, () => (xType === 'int32' ? 0 : rng.int(lo, hi)));
  const scaleDims = perAxis ? [channels] : (rng.bool(0.3) ? [1] : []);
  const n = product(dims);
  const x = extremes ? INT_ARRAY[xType].from({ length: n }, () => rng.pick([lo, hi, 0, 1, -1, lo + 1, hi - 1]))
    : ints(rng, xType, n);
  const attrs = {};
  if (perAxis || (opset >= 13 && rng.bool(0.3))) attrs.axis = axis;
  const inputs = [t('x', xType, dims, x)];
  const initializers = [];
  (zpInput ? inputs : initializers).push(t('s', scaleType, scaleDims, floats(scaleType, scales)));
  if (withZp) (zpInput ? inputs : initializers).push(t('z', xType, scaleDims, INT_ARRAY[xType].from(zps)));
  return {
    ...base,
    id: `DequantizeLinear/${index}/${xType}-${scaleType}/${perAxis ? `axis${axis}` : 'tensor'}` +
      `${withZp ? '' : '/nozp'}${scaleKind ? `/${scaleKind}` : ''}${extremes ? '/extremes' : ''}` +
      `${zpInput ? '/runtime-params' : ''}/opset${opset}`,
    opset,
    nodes: [{ op: 'DequantizeLinear', inputs: withZp ? ['x', 's', 'z'] : ['x', 's'], outputs: ['y'], attrs }],
    inputs,
    initializers,
    outputs: [out('y', scaleType)],
  };
}

function* dequantizeCases(rng) {
  let i = 0;
  for (let k = 0; k < 5; ++k) {
    for (const xType of ['uint8', 'int8']) {
      yield dequantizeCase(rng, i++, { opset: 10, xType });
      yield dequantizeCase(rng, i++, { opset: 13, xType, perAxis: true });
      yield dequantizeCase(rng, i++, { opset: 19, xType, scaleType: 'float16', perAxis: k % 2 === 0 });
      yield dequantizeCase(rng, i++, { opset: 13, xType, extremes: true, scaleKind: rng.pick(['large', 'small']) });
    }
    for (const xType of ['uint16', 'int16']) {
      yield dequantizeCase(rng, i++, { opset: 21, xType, perAxis: k % 2 === 1 });
      yield dequantizeCase(rng, i++, { opset: 21, xType, extremes: true });
    }
    yield dequantizeCase(rng, i++, { opset: rng.pick([10, 13]), xType: 'int32', withZp: k % 2 === 0, extremes: k > 2 });
  }
  for (const scaleKind of ['subnormal', 'tiny', 'huge']) {
    yield dequantizeCase(rng, i++, { opset: 13, xType: 'int8', scaleKind });
    yield dequantizeCase(rng, i++, { opset: 13, xType: 'int32', scaleKind, extremes: true });
  }
  for (let k = 0; k < 4; ++k) {
    yield dequantizeCase(rng, i++, { opset: 13, xType: k % 2 ? 'int8' : 'uint8', withZp: false });
    yield dequantizeCase(rng, i++, { opset: 13, xType: k % 2 ? 'int8' : 'uint8', zpInput: true, perAxis: k > 1 });
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// DynamicQuantizeLinear

function dynamicCase(rng, index, kind) {
  const dims = kind === 'scalar' ? [] : kind === 'long' ? [3, 333] : [rng.int(1, 4), rng.int(1, 9)];
  const n = product(dims);
  const spread = rng.pick([0.01, 1, 100, 1e6]);
  const value = () => {
    switch (kind) {
      case 'positive': return rng.uniform(0, spread);
      case 'negative': return -rng.uniform(0, spread);
      case 'zeros': return rng.bool() ? 0 : -0;
      case 'subnormal': return rng.pick([2 ** -149, -(2 ** -149), 0]);
      case 'specials': return rng.bool(0.3) ? rng.pick([Infinity, -Infinity, 3e38, -3e38, 1e-40]) :
        rng.uniform(-spread, spread);
      case 'nan': return rng.bool(0.25) ? NaN : rng.uniform(-spread, spread);
      default: return rng.uniform(-spread, spread);
    }
  };
  const values = Array.from({ length: n }, value);
  // Ties: a range of exactly [-127.5 * s, 127.5 * s] for a power-of-two s puts elements at k + 1/2 steps.
  if (kind === 'ties' && n >= 2) {
    const s = 2 ** rng.int(-4, 2);
    values[0] = -127.5 * s;
    values[1] = 127.5 * s;
    for (let j = 2; j < n; ++j) values[j] = (rng.int(-127, 126) + 0.5) * s;
  }
  return {
    ...base,
    id: `DynamicQuantizeLinear/${index}/${kind}`,
    opset: rng.pick([11, 13, 19, 21]),
    nodes: [{ op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['y', 's', 'z'] }],
    inputs: [t('x', 'float32', dims, Float32Array.from(values, f32))],
    outputs: [out('y', 'uint8'), out('s', 'float32'), out('z', 'uint8')],
  };
}

function* dynamicCases(rng) {
  let i = 0;
  const kinds = ['mixed', 'mixed', 'mixed', 'positive', 'negative', 'ties', 'long'];
  for (let k = 0; k < 5; ++k) for (const kind of kinds) yield dynamicCase(rng, i++, kind);
  for (const kind of ['zeros', 'zeros', 'scalar', 'subnormal', 'specials', 'specials', 'nan', 'nan']) {
    yield dynamicCase(rng, i++, kind);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Integer products

const Q8 = ['uint8', 'int8'];

// Zero point tensor: scalar, [1] or (where allowed) a vector of `n`.
function zeroPoint(rng, name, type, vectorLength) {
  const [lo, hi] = INT_RANGE[type];
  if (vectorLength) return t(name, type, [vectorLength], ints(rng, type, vectorLength, lo, hi));
  return t(name, type, rng.bool(0.3) ? [1] : [], ints(rng, type, 1, lo, hi));
}

function matmulShapes(rng) {
  const m = rng.pick([1, 2, 3, 5, 7, 13, 48, 49]);
  const k = rng.pick([1, 2, 3, 7, 16, 33, 64, 100, 513]);
  const n = rng.pick([1, 2, 5, 15, 16, 17, 64, 65]);
  const batch = rng.bool(0.25) ? [rng.int(1, 3)] : [];
  const bBatched = batch.length > 0 && rng.bool(0.5);
  return { m, k, n, aDims: [...batch, m, k], bDims: bBatched ? [...batch, k, n] : [k, n] };
}

function* matmulIntegerCases(rng) {
  let i = 0;
  for (let k = 0; k < 10; ++k) {
    for (const aType of Q8) {
      for (const bType of Q8) {
        const { n, aDims, bDims } = matmulShapes(rng);
        const zpKind = rng.pick(['none', 'scalar', 'scalar', 'vector']);
        const twoD = aDims.length === 2 && bDims.length === 2;
        const inputs = [t('a', aType, aDims, ints(rng, aType, product(aDims))),
          t('b', bType, bDims, ints(rng, bType, product(bDims)))];
        const names = ['a', 'b'];
        if (zpKind !== 'none') {
          // A vector zero point of B holds one value per column (2-D B only); ONNX Runtime refuses a vector one for A.
          const vector = zpKind === 'vector' && twoD;
          inputs.push(zeroPoint(rng, 'az', aType, 0), zeroPoint(rng, 'bz', bType, vector ? n : 0));
          names.push('az', 'bz');
        }
        yield {
          ...base,
          id: `MatMulInteger/${i++}/${aType}-${bType}/${aDims.join('x')}-${bDims.join('x')}/zp-${zpKind}`,
          opset: rng.pick([10, 13, 21]),
          nodes: [{ op: 'MatMulInteger', inputs: names, outputs: ['y'] }],
          inputs: inputs.slice(0, 1),
          initializers: inputs.slice(1),
          outputs: [out('y', 'int32')],
        };
      }
    }
  }
}

function* qlinearMatmulCases(rng) {
  let i = 0;
  for (let k = 0; k < 16; ++k) {
    for (const [aType, bType] of QLINEAR_TYPES) {
      const yType = aType;
      const { n, aDims, bDims } = matmulShapes(rng);
      const perColumn = bDims.length === 2 && rng.bool(0.4);
      const bScales = Array.from({ length: perColumn ? n : 1 }, () => randomScale(rng));
      const opset = rng.pick([10, 13, 21]);
      const scaleType = 'float32';
      const aScale = randomScale(rng);
      // An output scale near the spread of the products keeps most outputs inside the range, some saturating.
      const yScale = aScale * bScales[0] * Math.sqrt(aDims[aDims.length - 1]) * rng.uniform(8, 80);
      const params = [
        t('as', scaleType, [], floats(scaleType, [aScale])), zeroPoint(rng, 'az', aType, 0),
        t('b', bType, bDims, ints(rng, bType, product(bDims))),
        t('bs', scaleType, perColumn ? [n] : [], floats(scaleType, bScales)),
        zeroPoint(rng, 'bz', bType, perColumn ? n : 0),
        t('ys', scaleType, [], floats(scaleType, [yScale])),
        zeroPoint(rng, 'yz', yType, 0)];
      // The zero points of B and Y share their types with B and Y.
      yield {
        ...base,
        id: `QLinearMatMul/${i++}/${aType}-${bType}-${yType}/${aDims.join('x')}-${bDims.join('x')}` +
          `/${perColumn ? 'per-column' : 'per-tensor'}/opset${opset}`,
        opset,
        nodes: [{ op: 'QLinearMatMul', inputs: ['a', 'as', 'az', 'b', 'bs', 'bz', 'ys', 'yz'], outputs: ['y'] }],
        inputs: [t('a', aType, aDims, ints(rng, aType, product(aDims)))],
        initializers: params,
        outputs: [out('y', yType)],
      };
    }
  }
}

// The type combinations ONNX Runtime has kernels for (first operand, second operand; the output has the first
// operand's type): uint8 with either, int8 with int8.
const QLINEAR_TYPES = [['uint8', 'uint8'], ['uint8', 'int8'], ['int8', 'int8']];

// Convolution geometry: 1-D or 2-D, odd sizes, padding, strides, dilations, groups (depthwise too).
function convGeometry(rng) {
  const spatial = rng.bool(0.2) ? 1 : 2;
  const group = rng.pick([1, 1, 1, 2, 'depthwise']);
  const cPerGroup = group === 'depthwise' ? 1 : rng.int(1, 4);
  const groups = group === 'depthwise' ? rng.int(2, 8) : group;
  const c = cPerGroup * groups;
  const mPerGroup = group === 'depthwise' ? 1 : rng.int(1, 4);
  const m = mPerGroup * groups;
  const kernel = Array.from({ length: spatial }, () => rng.pick([1, 2, 3, 3, 5]));
  const size = kernel.map((kk) => kk + rng.int(0, 9));
  const attrs = { kernel_shape: kernel };
  if (groups > 1) attrs.group = groups;
  if (rng.bool(0.4)) attrs.strides = kernel.map(() => rng.int(1, 3));
  const padMode = rng.pick(['none', 'pads', 'pads', 'same']);
  // ONNX Runtime refuses dilations with SAME padding.
  if (padMode !== 'same' && rng.bool(0.3)) attrs.dilations = kernel.map(() => rng.int(1, 2));
  if (padMode === 'pads') attrs.pads = [...kernel.map(() => rng.int(0, 2)), ...kernel.map(() => rng.int(0, 2))];
  if (padMode === 'same') attrs.auto_pad = rng.pick(['SAME_UPPER', 'SAME_LOWER']);
  // Keep every output extent positive with the dilated kernel.
  const dil = attrs.dilations ?? kernel.map(() => 1);
  const grown = size.map((s, d) => Math.max(s, (kernel[d] - 1) * dil[d] + 1));
  const n = rng.pick([1, 1, 2]);
  return { xDims: [n, c, ...grown], wDims: [m, cPerGroup, ...kernel], m, attrs, groups };
}

function* convIntegerCases(rng) {
  let i = 0;
  for (let k = 0; k < 9; ++k) {
    for (const xType of Q8) {
      for (const wType of Q8) {
        const { xDims, wDims, attrs, groups } = convGeometry(rng);
        const withZp = rng.bool(0.75);
        const names = withZp ? ['x', 'w', 'xz', 'wz'] : ['x', 'w'];
        const initializers = [t('w', wType, wDims, ints(rng, wType, product(wDims)))];
        if (withZp) initializers.push(zeroPoint(rng, 'xz', xType, 0), zeroPoint(rng, 'wz', wType, 0));
        yield {
          ...base,
          id: `ConvInteger/${i++}/${xType}-${wType}/${xDims.join('x')}-${wDims.join('x')}/g${groups}` +
            `${withZp ? '' : '/nozp'}`,
          opset: rng.pick([10, 13, 21]),
          nodes: [{ op: 'ConvInteger', inputs: names, outputs: ['y'], attrs }],
          inputs: [t('x', xType, xDims, ints(rng, xType, product(xDims)))],
          initializers,
          outputs: [out('y', 'int32')],
        };
      }
    }
  }
}

function* qlinearConvCases(rng) {
  let i = 0;
  for (let k = 0; k < 15; ++k) {
    for (const [xType, wType] of QLINEAR_TYPES) {
      const yType = xType;
      const { xDims, wDims, m, attrs, groups } = convGeometry(rng);
      const perChannel = rng.bool(0.5);
      const withBias = rng.bool(0.6);
      // ONNX Runtime wants a zero weight zero point for int8 weights; per-channel zero points are all equal.
      const wz = wType === 'int8' ? 0 : rng.int(0, 255);
      const wScales = Array.from({ length: perChannel ? m : 1 }, () => randomScale(rng));
      const xScale = randomScale(rng);
      const yScale = xScale * wScales[0] * Math.sqrt(product(wDims.slice(1))) * rng.uniform(8, 80);
      const initializers = [
        t('xs', 'float32', [], floats('float32', [xScale])), zeroPoint(rng, 'xz', xType, 0),
        t('w', wType, wDims, ints(rng, wType, product(wDims))),
        t('ws', 'float32', perChannel ? [m] : [], floats('float32', wScales)),
        t('wz', wType, perChannel ? [m] : [], INT_ARRAY[wType].from({ length: perChannel ? m : 1 }, () => wz)),
        t('ys', 'float32', [], floats('float32', [yScale])),
        zeroPoint(rng, 'yz', yType, 0)];
      const names = ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz'];
      if (withBias) {
        initializers.push(t('bias', 'int32', [m], ints(rng, 'int32', m, -100000, 100000)));
        names.push('bias');
      }
      yield {
        ...base,
        id: `QLinearConv/${i++}/${xType}-${wType}-${yType}/${xDims.join('x')}-${wDims.join('x')}/g${groups}` +
          `/${perChannel ? 'per-channel' : 'per-tensor'}${withBias ? '/bias' : ''}`,
        opset: rng.pick([10, 13, 21]),
        nodes: [{ op: 'QLinearConv', inputs: names, outputs: ['y'], attrs }],
        inputs: [t('x', xType, xDims, ints(rng, xType, product(xDims)))],
        initializers,
        outputs: [out('y', yType)],
      };
    }
  }
}

export function* cases(rng) {
  yield* quantizeCases(rng);
  yield* dequantizeCases(rng);
  yield* dynamicCases(rng);
  yield* matmulIntegerCases(rng);
  yield* qlinearMatmulCases(rng);
  yield* convIntegerCases(rng);
  yield* qlinearConvCases(rng);
}

