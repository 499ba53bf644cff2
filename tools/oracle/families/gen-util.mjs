// Helpers shared by the family generators (shape.mjs, norms.mjs): value pickers on the recorder's seeded rng,
// typed arrays per element type, row-major index arithmetic and the case-spec builder.
// Only rng.float() (uniform in [0, 1)) is used, so the generators depend on nothing else of the rng.

import { ARRAYS, FLOAT_TYPES, isBig, isFloat } from '../lib.mjs';

export { FLOAT_TYPES, isFloat };

// Number-valued ranges (64-bit types kept within 2^53 so the generators can do plain arithmetic on them).
const INT_RANGES = {
  int8: [-128, 127],
  uint8: [0, 255],
  bool: [0, 1],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  int64: [-(2 ** 53), 2 ** 53],
  uint64: [0, 2 ** 53],
};

export const intRange = (type) => INT_RANGES[type];

// Inclusive integer in [lo, hi].
export const randInt = (rng, lo, hi) => lo + Math.min(hi - lo, Math.floor(rng.float() * (hi - lo + 1)));
export const pick = (rng, items) => items[randInt(rng, 0, items.length - 1)];
export const chance = (rng, p) => rng.float() < p;

export function shuffle(rng, items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; --i) {
    const j = randInt(rng, 0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export const product = (dims) => dims.reduce((a, b) => a * b, 1);
export const randomDims = (rng, rank, lo = 1, hi = 5) => Array.from({ length: rank }, () => randInt(rng, lo, hi));

// Row-major strides and index <-> offset conversions.
export function strides(dims) {
  const s = new Array(dims.length).fill(1);
  for (let i = dims.length - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}
export function unravel(offset, dims) {
  const index = new Array(dims.length);
  for (let i = dims.length - 1; i >= 0; --i) {
    index[i] = dims[i] ? offset % dims[i] : 0;
    offset = dims[i] ? Math.floor(offset / dims[i]) : 0;
  }
  return index;
}

// float32 -> IEEE binary16 / bfloat16 bits, round to nearest even.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
export function toBfloat16Bits(value) {
  f32[0] = value;
  const bits = u32[0];
  if ((bits & 0x7fffffff) > 0x7f800000) return 0x7fc0;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}
export function toFloat16Bits(value) {
  f32[0] = value;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let m = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    if (rest > half || (rest === half && m & 1)) ++m;
    return sign | m;
  }
  let m = mantissa >>> 13;
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && m & 1)) ++m;
  if (m === 0x400) {
    m = 0;
    ++e;
  }
  if (e >= 0x1f) return sign | 0x7c00;
  return sign | (e << 10) | m;
}
export function fromFloat16Bits(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  if (e === 0) return sign * m * 2 ** -24;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// A typed array of `type` holding JS numbers or bigints (floats, integers, booleans); half types are converted to
// their bits.
export function typed(type, values) {
  const Array_ = ARRAYS[type];
  if (!Array_) throw new Error(`gen-util: unknown element type ${type}`);
  if (isBig(type)) return Array_.from(values, (v) => BigInt(v));
  if (type === 'float16') return Uint16Array.from(values, toFloat16Bits);
  if (type === 'bfloat16') return Uint16Array.from(values, toBfloat16Bits);
  if (type === 'bool') return Uint8Array.from(values, (v) => (v ? 1 : 0));
  return Array_.from(values, Number);
}

// JS numbers back from a typed array of `type` (the reverse of typed()).
export function numbers(type, data) {
  if (type === 'float16') return Array.from(data, fromFloat16Bits);
  if (type === 'bfloat16') return Array.from(data, (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0]);
  return Array.from(data, Number);
}

const SPECIAL_FLOATS = [
  NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  1.4e-45,
  -1.4e-45,
  1e-40,
  -3e-39,
  3.4028234663852886e38,
  -3.4028234663852886e38,
];
const SPECIAL_FLOATS_64 = [
  NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  5e-324,
  -2e-310,
  1.7976931348623157e308,
  -1.7976931348623157e308,
];

// Random values of `type`: floats uniform in [-scale, scale] (or small integers with `ties`, so equal values occur),
// with a fraction `specials` of NaN, infinities, signed zeros, subnormals and extreme finites; integers uniform in
// [lo, hi] clipped to the type's range (default: the type's range, narrowed to +-100 when `small`). Floats in
// [lo, hi] instead of [-scale, scale] when both are given.
export function values(rng, type, count, opts = {}) {
  const {
    specials = 0,
    scale = 10,
    ties = false,
    lo,
    hi,
    small = true,
    noNaN = false,
    extremes = true,
    subnormals = true,
  } = opts;
  const out = new Array(count);
  if (isFloat(type)) {
    let pool = type === 'float64' ? SPECIAL_FLOATS_64 : SPECIAL_FLOATS;
    if (noNaN) pool = pool.filter((v) => !Number.isNaN(v));
    // Without extremes: no largest finites, whose sums overflow depending on the order of additions.
    if (!extremes) pool = pool.filter((v) => !(Math.abs(v) > 1e38 && Number.isFinite(v)));
    if (!subnormals) pool = pool.filter((v) => !(v !== 0 && Math.abs(v) < 1e-30));
    for (let i = 0; i < count; ++i) {
      if (specials && chance(rng, specials)) out[i] = pick(rng, pool);
      else if (ties) out[i] = randInt(rng, -3, 3);
      else if (lo !== undefined && hi !== undefined) out[i] = lo + rng.float() * (hi - lo);
      else out[i] = (rng.float() * 2 - 1) * scale;
    }
    return out;
  }
  const [tlo, thi] = INT_RANGES[type];
  const a = Math.max(tlo, lo ?? (small ? -100 : tlo));
  const b = Math.min(thi, hi ?? (small ? 100 : thi));
  for (let i = 0; i < count; ++i) out[i] = ties ? randInt(rng, Math.max(a, -3), Math.min(b, 3)) : randInt(rng, a, b);
  return out;
}

// A graph input or initializer entry.
export const tensor = (name, type, dims, vals) => ({ name, type, dims: [...dims], data: typed(type, vals) });
export const randomTensor = (rng, name, type, dims, opts) =>
  tensor(name, type, dims, values(rng, type, product(dims), opts));
export const int64s = (name, vals, dims = [vals.length]) => ({
  name,
  type: 'int64',
  dims,
  data: BigInt64Array.from(vals, (v) => BigInt(v)),
});
export const scalar = (name, type, value) => tensor(name, type, [], [value]);

// Case builder: unique ids "<Op>/<label>/<n>", defaults for a one-node graph whose outputs are y0, y1, ...
export class CaseMaker {
  constructor() {
    this.counts = new Map();
  }
  id(op, label) {
    const key = `${op}/${label}`;
    const n = this.counts.get(key) ?? 0;
    this.counts.set(key, n + 1);
    return `${key}/${n}`;
  }
  // spec: { op, label, opset, args, attrs, outputs, check, tol, exact, deviation, ort, nodes }
  //   args: the node's inputs in order: a tensor (a graph input, or an initializer when it has `constant: true`),
  //         or null for an omitted optional input;
  //   outputs: element types (named y0, y1, ... by position), {name, type}, or null for an omitted optional output.
  make(spec) {
    // A null output is an omitted optional output of the node.
    const named = spec.outputs.map((o, i) => (typeof o === 'string' ? { name: `y${i}`, type: o } : o));
    const outputs = named.filter((o) => o);
    const args = spec.args ?? [];
    const strip = ({ constant, ...t }) => t;
    const inputs = args.filter((t) => t && !t.constant).map(strip);
    const initializers = args.filter((t) => t && t.constant).map(strip);
    let nodeInputs = args.map((t) => (t ? t.name : ''));
    while (nodeInputs.length && nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();
    const check = spec.check ?? (outputs.every((o) => !isFloat(o.type)) ? 'int' : 'bits');
    const c = {
      id: this.id(spec.op, spec.label),
      opset: spec.opset,
      nodes: spec.nodes ?? [
        { op: spec.op, inputs: nodeInputs, outputs: named.map((o) => (o ? o.name : '')), attrs: spec.attrs ?? {} },
      ],
      inputs,
      initializers,
      outputs,
      check,
      exact: spec.exact ?? true,
    };
    if (check === 'scaled') c.tol = spec.tol ?? 1e-4;
    if (spec.deviation) c.deviation = spec.deviation;
    if (spec.ort === false) c.ort = false;
    return c;
  }
}

// Marks a tensor as a constant input (an initializer of the case's graph).
export const constant = (t) => ({ ...t, constant: true });
