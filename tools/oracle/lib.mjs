// Shared machinery of the ONNX Runtime oracle cases: a seeded random source, value generators, the model builder, the
// ONNX Runtime runner and the deterministic recorder behind `node tools/oracle/record.mjs <family>|all`.
//
// A family module (tools/oracle/families/<family>.mjs) exports `function* cases(rng)` yielding case specs:
//   { id, opset, nodes: [{ op, inputs, outputs, attrs }], inputs: [{ name, type, dims, data }],
//     initializers: [{ name, type, dims, data }], outputs: [{ name, type }], check: 'bits' | 'scaled' | 'int',
//     tol, exact, deviation?: { why, expect: [{ name, type, dims, data }] }, ort?: false }
// Types are the names of ELEMENT_TYPES; data is the matching typed array (float16 and bfloat16 as Uint16Array of bits,
// bool as Uint8Array, int64/uint64 as BigInt64Array/BigUint64Array). `ort: false` marks a case ONNX Runtime must not
// run (e.g. integer division by zero): it needs a deviation and is recorded with `outputs: null`.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ELEMENT_TYPES, graph, modelBytes, node, tensor, valueInfo } from '../../js-tests/helpers/onnx-writer.mjs';

export { ELEMENT_TYPES };
export const ORT_VERSION = '1.30.0';

const require = createRequire(import.meta.url);
let ortModule = null;
function ort() {
  if (!ortModule) {
    ortModule = require('onnxruntime-node');
    ortModule.env.logLevel = 'fatal'; // refusals are reported by the recorder, not logged twice
    const version = require('onnxruntime-node/package.json').version;
    if (version !== ORT_VERSION) throw new Error(`onnxruntime-node ${version} found, ${ORT_VERSION} required`);
  }
  return ortModule;
}

// ---------------------------------------------------------------------------------------------------------------------
// Random source: sfc32 seeded from a string or number through a 32-bit FNV-1a/murmur mix, so every family has its own
// reproducible stream.

function hashSeed(seed) {
  const text = String(seed);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; ++i) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const words = [];
  for (let i = 0; i < 4; ++i) {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    words.push(h >>> 0);
    h = (h + 0x9e3779b9) | 0;
  }
  return words;
}

export function makeRng(seed) {
  let [a, b, c, d] = hashSeed(seed);
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; ++i) next();
  const rng = {
    u32: next,
    // Uniform in [0, 1) with 53 random bits.
    float: () => (next() * 2 ** 21 + (next() >>> 11)) / 2 ** 53,
    // Uniform integer in [lo, hi], both included.
    int: (lo, hi) => lo + Math.floor(rng.float() * (hi - lo + 1)),
    uniform: (lo, hi) => lo + (hi - lo) * rng.float(),
    normal: () => {
      const u = 1 - rng.float();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.float());
    },
    bool: (p = 0.5) => rng.float() < p,
    pick: (arr) => arr[Math.floor(rng.float() * arr.length)],
    shuffle: (arr) => {
      const out = arr.slice();
      for (let i = out.length - 1; i > 0; --i) {
        const j = Math.floor(rng.float() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
  return rng;
}

// ---------------------------------------------------------------------------------------------------------------------
// Element types.

export const FLOAT_TYPES = ['float32', 'float64', 'float16', 'bfloat16'];
export const INT_TYPES = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];

export const ARRAYS = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  bfloat16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
};

const INT_RANGES = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  bool: [0, 1],
};

export const isFloat = (type) => FLOAT_TYPES.includes(type);
export const isBig = (type) => type === 'int64' || type === 'uint64';
export const intRange = (type) => INT_RANGES[type];
export const numel = (dims) => dims.reduce((n, d) => n * d, 1);

export function arrayFor(type, n) {
  const Ctor = ARRAYS[type];
  if (!Ctor) throw new Error(`unknown element type ${type}`);
  return new Ctor(n);
}

// Builds a typed array of `type` from plain JS numbers (floats: real values, rounded to the type; integers: numbers
// or bigints, wrapped like a C cast; bool: truthiness).
export function fromValues(type, values) {
  const out = arrayFor(type, values.length);
  values.forEach((v, i) => {
    if (type === 'float16') out[i] = f16Bits(v);
    else if (type === 'bfloat16') out[i] = bf16Bits(v);
    else if (type === 'bool') out[i] = v ? 1 : 0;
    else if (isBig(type)) out[i] = typeof v === 'bigint' ? v : BigInt(v);
    else out[i] = typeof v === 'bigint' ? Number(v) : v;
  });
  return out;
}

// The real values of a typed array of `type` (float16/bfloat16 decoded; 64-bit integers as bigints).
export function toValues(type, data) {
  if (type === 'float16') return Array.from(data, f16Value);
  if (type === 'bfloat16') return Array.from(data, bf16Value);
  return Array.from(data);
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);
export const f32 = Math.fround;
export function f32Bits(x) {
  f32Scratch[0] = x;
  return u32Scratch[0];
}
export function f32FromBits(bits) {
  u32Scratch[0] = bits;
  return f32Scratch[0];
}

// IEEE binary16 bits of a double, round to nearest even (directly from the double, one rounding).
export function f16Bits(x) {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) {
    // Subnormal: units of 2^-24, ties to even.
    const q = a / 2 ** -24;
    let m = Math.floor(q);
    const r = q - m;
    if (r > 0.5 || (r === 0.5 && m & 1)) ++m;
    return sign | m;
  }
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) --e;
  if (2 ** (e + 1) <= a) ++e;
  const q = (a / 2 ** e - 1) * 1024;
  let m = Math.floor(q);
  const r = q - m;
  if (r > 0.5 || (r === 0.5 && m & 1)) ++m;
  if (m === 1024) {
    m = 0;
    ++e;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}
export function f16Value(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  if (e === 0) return sign * m * 2 ** -24;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// bfloat16 bits of a double: rounded to float32 first, then to 8 mantissa bits with ties to even.
export function bf16Bits(x) {
  if (Number.isNaN(x)) return 0x7fc0;
  const b = f32Bits(x);
  const rounded = b + 0x7fff + ((b >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}
export function bf16Value(bits) {
  return f32FromBits((bits << 16) >>> 0);
}

// ---------------------------------------------------------------------------------------------------------------------
// Values.

// Special values of a type: for floats NaN, ±inf, ±0, the smallest and largest subnormals, the smallest normal, the
// largest finite and ±1; for integers the extremes, 0 and ±1.
export function specials(type) {
  switch (type) {
    case 'float32':
      return [NaN, Infinity, -Infinity, 0, -0, 2 ** -149, -(2 ** -149), 2 ** -126 - 2 ** -149, 2 ** -126, -(2 ** -126),
        f32FromBits(0x7f7fffff), -f32FromBits(0x7f7fffff), 1, -1];
    case 'float64':
      return [NaN, Infinity, -Infinity, 0, -0, 5e-324, -5e-324, 2 ** -1022 - 5e-324, 2 ** -1022, -(2 ** -1022),
        Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1];
    case 'float16':
      return [NaN, Infinity, -Infinity, 0, -0, 2 ** -24, -(2 ** -24), 2 ** -14 - 2 ** -24, 2 ** -14, 65504, -65504, 1,
        -1];
    case 'bfloat16':
      return [NaN, Infinity, -Infinity, 0, -0, 2 ** -133, -(2 ** -133), 2 ** -126, bf16Value(0x7f7f),
        -bf16Value(0x7f7f),
        1, -1];
    case 'bool':
      return [0, 1];
    default: {
      const [lo, hi] = INT_RANGES[type];
      const zero = isBig(type) ? 0n : 0;
      const one = isBig(type) ? 1n : 1;
      const out = [lo, hi, zero, one];
      if (lo < zero) out.push(-one, lo + one);
      else out.push(hi - one);
      return out;
    }
  }
}

// A random tensor of `type` and `dims` (data only). Options:
//   lo, hi: value range (floats default [-4, 4), integers default [-100, 100] clipped to the type);
//   specials: fraction of elements replaced by specials(type) (default 0);
//   values: an explicit list to draw every element from (overrides lo/hi);
//   nonzero: true to avoid 0 (integer divisors).
export function randomTensor(rng, type, dims, opts = {}) {
  const n = numel(dims);
  const values = new Array(n);
  const special = specials(type);
  for (let i = 0; i < n; ++i) {
    let v;
    if (opts.specials && rng.float() < opts.specials) v = rng.pick(special);
    else if (opts.values) v = rng.pick(opts.values);
    else if (type === 'bool') v = rng.int(0, 1);
    else if (isFloat(type)) v = rng.uniform(opts.lo ?? -4, opts.hi ?? 4);
    else {
      const [tlo, thi] = INT_RANGES[type];
      const lo = Math.max(Number(opts.lo ?? -100), Number(tlo));
      const hi = Math.min(Number(opts.hi ?? 100), Number(thi));
      v = rng.int(lo, hi);
      if (opts.nonzero && v === 0) v = hi > 0 ? 1 : -1;
    }
    if (isBig(type) && typeof v !== 'bigint') v = BigInt(v);
    values[i] = v;
  }
  if (type === 'float32') return Float32Array.from(values, f32);
  return fromValues(type, values);
}

// ---------------------------------------------------------------------------------------------------------------------
// Models and ONNX Runtime.

// The ONNX IR version that goes with an opset (older IR versions reject newer opsets in some loaders).
export function irVersionFor(opset) {
  if (opset >= 23) return 11;
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  return 8;
}

// A node of a case spec; an attribute `{ body: { nodes, inputs, outputs, initializers } }` is a subgraph (If, Loop,
// Scan), whose inputs and outputs may leave dims (and outputs the type) undeclared.
function specNode(n, i, prefix) {
  const attrs = {};
  for (const [key, value] of Object.entries(n.attrs ?? {})) {
    attrs[key] = value && value.body ? { graph: specGraph(value.body, `${prefix}${i}_${key}`) } : value;
  }
  return node(n.op, n.inputs, n.outputs, attrs, `${prefix}${i}`);
}

function specGraph(g, name) {
  return graph({
    nodes: g.nodes.map((n, i) => specNode(n, i, `${name}_n`)),
    inputs: g.inputs.map((t) => valueInfo(t.name, t.type, t.dims)),
    outputs: g.outputs.map((t) => valueInfo(t.name, t.type, t.dims)),
    initializers: (g.initializers ?? []).map((t) => tensor(t.name, t.type, t.dims, t.data)),
    name,
  });
}

// ONNX ModelProto bytes of a case spec. Graph inputs keep fixed dims; outputs leave the shape unknown.
export function buildModel(spec) {
  return modelBytes({
    opset: spec.opset,
    irVersion: irVersionFor(spec.opset),
    nodes: spec.nodes.map((n, i) => specNode(n, i, 'n')),
    inputs: spec.inputs.map((t) => valueInfo(t.name, t.type, t.dims)),
    outputs: spec.outputs.map((t) => valueInfo(t.name, t.type)),
    initializers: (spec.initializers ?? []).map((t) => tensor(t.name, t.type, t.dims, t.data)),
    name: 'oracle',
  });
}

const ORT_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
  graphOptimizationLevel: 'disabled', logSeverityLevel: 4 };

// Runs a case spec on ONNX Runtime; returns [{ name, type, dims, data }] in the spec's output order. Throws when ONNX
// Runtime refuses the model or the inputs.
export async function runOrt(spec, model = buildModel(spec)) {
  const { InferenceSession, Tensor } = ort();
  const session = await InferenceSession.create(model, ORT_OPTIONS);
  try {
    const feeds = {};
    for (const t of spec.inputs) {
      if (t.type === 'bfloat16') throw new Error('bfloat16 graph inputs cannot be fed to onnxruntime-node');
      feeds[t.name] = new Tensor(t.type, t.data, t.dims);
    }
    const results = await session.run(feeds);
    return spec.outputs.map((o) => {
      const r = results[o.name];
      if (!r) throw new Error(`ONNX Runtime returned no output ${o.name}`);
      let data = r.data;
      if (r.type === 'float16' && !(data instanceof Uint16Array))
        data = new Uint16Array(data.buffer, data.byteOffset, data.length);
      return { name: o.name, type: r.type, dims: Array.from(r.dims, Number), data: data.slice() };
    });
  } finally {
    await session.release();
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Recording.

function base64(data) {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

function encodeTensor(t) {
  const code = ELEMENT_TYPES[t.type];
  if (!code) throw new Error(`tensor ${t.name}: unknown element type ${t.type}`);
  const Ctor = ARRAYS[t.type];
  if (!(t.data instanceof Ctor)) throw new Error(`tensor ${t.name}: ${t.type} data must be a ${Ctor.name}`);
  if (t.data.length !== numel(t.dims))
    throw new Error(`tensor ${t.name}: ${t.data.length} values for dims [${t.dims}]`);
  return { name: t.name, type: code, dims: t.dims.map(Number), data: base64(t.data) };
}

const CHECKS = ['bits', 'scaled', 'int'];

function validate(spec, seen) {
  const where = `case ${spec.id}`;
  if (typeof spec.id !== 'string' || !spec.id) throw new Error(`case without id after ${[...seen].pop()}`);
  if (seen.has(spec.id)) throw new Error(`${where}: duplicate id`);
  if (!Number.isInteger(spec.opset)) throw new Error(`${where}: opset missing`);
  if (!CHECKS.includes(spec.check)) throw new Error(`${where}: check must be one of ${CHECKS}`);
  if (spec.check === 'scaled' && !(spec.tol > 0)) throw new Error(`${where}: scaled check needs tol`);
  if (spec.ort === false && !spec.deviation) throw new Error(`${where}: ort: false needs a deviation`);
  if (spec.deviation && !(spec.deviation.why && Array.isArray(spec.deviation.expect)))
    throw new Error(`${where}: deviation needs why and expect`);
}

// One recorded case, keys in a fixed order.
function recordCase(spec, model, outputs) {
  const rec = {
    id: spec.id,
    opset: spec.opset,
    model: Buffer.from(model).toString('base64'),
    inputs: spec.inputs.map(encodeTensor),
    outputs: outputs ? outputs.map(encodeTensor) : null,
    check: spec.check,
    tol: spec.check === 'scaled' ? spec.tol : 0,
    exact: spec.exact !== false,
  };
  if (spec.deviation) rec.deviation = { why: spec.deviation.why, expect: spec.deviation.expect.map(encodeTensor) };
  return rec;
}

export const opOf = (id) => id.split('/')[0];

// Runs every case of a family module through ONNX Runtime and writes the file at outPath (the committed files use
// the default seed). Returns { count, bytes, perOp: Map, refused: [{ id, message }] }.
export async function recordFamily(family, module, outPath, log = console.log, seed = `onemodel-oracle-${family}`) {
  const rng = makeRng(seed);
  const seen = new Set();
  const cases = [];
  const perOp = new Map();
  const refused = [];
  for (const spec of module.cases(rng)) {
    validate(spec, seen);
    seen.add(spec.id);
    const model = buildModel(spec);
    let outputs = null;
    if (spec.ort !== false) {
      try {
        outputs = await runOrt(spec, model);
        for (let i = 0; i < outputs.length; ++i) {
          if (outputs[i].type !== spec.outputs[i].type)
            throw new Error(`output ${outputs[i].name} is ${outputs[i].type}, declared ${spec.outputs[i].type}`);
        }
      } catch (err) {
        refused.push({ id: spec.id, message: String(err.message ?? err).split('\n')[0] });
        continue;
      }
    }
    cases.push(recordCase(spec, model, outputs));
    perOp.set(opOf(spec.id), (perOp.get(opOf(spec.id)) ?? 0) + 1);
  }
  const doc = { family, onnxruntime: ORT_VERSION, generator: 'tools/oracle/record.mjs', cases };
  const bytes = gzipSync(Buffer.from(JSON.stringify(doc)), { level: 9 });
  fs.mkdirSync(path.dirname(outPath), { recursive: true });
  fs.writeFileSync(outPath, bytes);
  log(`${family}: ${cases.length} cases, ${bytes.length} bytes -> ${outPath}`);
  return { count: cases.length, bytes: bytes.length, perOp, refused };
}
