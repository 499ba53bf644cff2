// The ONNX Runtime oracle cases (docs/oracle.md) on the wasm build: every 8th recorded case of each family, on both
// wasm kernel paths, in fast mode and (when the case has an exact kernel) exact mode, with the native runner's rules.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { Session, Tensor } from 'onemodel';
import { repoRoot } from './helpers/paths.mjs';

const TYPES = { 1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool',
  10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64', 16: 'bfloat16' };
const ARRAYS = { float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array };
const SAMPLE_EVERY = 8;

function decodeTensor(t) {
  const type = TYPES[t.type];
  const bytes = Buffer.from(t.data, 'base64');
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const Ctor = ARRAYS[type];
  return { name: t.name, type, dims: t.dims, data: new Ctor(copy.buffer, 0, copy.length / Ctor.BYTES_PER_ELEMENT) };
}

function halfValue(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return e === 0 ? sign * m * 2 ** -24 : sign * (1 + m / 1024) * 2 ** (e - 15);
}
const bf16Scratch = new Uint32Array(1);
const bf16Float = new Float32Array(bf16Scratch.buffer);
function bfloat16Value(bits) {
  bf16Scratch[0] = bits << 16;
  return bf16Float[0];
}

const bytesOf = (data) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

// Element values of a float tensor as numbers, or null for the other types.
function floatValues(t) {
  if (t.type === 'float32' || t.type === 'float64') return Array.from(t.data);
  if (t.type === 'float16') return Array.from(t.data, halfValue);
  if (t.type === 'bfloat16') return Array.from(t.data, bfloat16Value);
  return null;
}

// Empty when `got` matches `want` under the case's rule (native-tests/ops/oracle_test.cc has the same rules).
function compare(got, want, check, tol) {
  if (got.type !== want.type) return `element type ${got.type}, expected ${want.type}`;
  if (got.dims.length !== want.dims.length || got.dims.some((d, i) => d !== want.dims[i])) return `shape [${got.dims}]`;
  const g = floatValues(got);
  const w = floatValues(want);
  if (!w || check !== 'scaled') {
    // Bit for bit, except that any NaN equals any NaN.
    const width = want.data.BYTES_PER_ELEMENT;
    const gb = bytesOf(got.data);
    const wb = bytesOf(want.data);
    for (let i = 0; i < want.data.length; ++i) {
      if (gb.subarray(i * width, (i + 1) * width).equals(wb.subarray(i * width, (i + 1) * width))) continue;
      if (w && Number.isNaN(g[i]) && Number.isNaN(w[i])) continue;
      return `element ${i}: got ${got.data[i]}, expected ${want.data[i]}`;
    }
    return '';
  }
  let scale = 1e-3;
  for (const v of w) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
  let worst = 0;
  let worstAt = 0;
  for (let i = 0; i < w.length; ++i) {
    if (!Number.isFinite(w[i])) {
      if (!(Object.is(g[i], w[i]) || (Number.isNaN(g[i]) && Number.isNaN(w[i]))))
        return `element ${i}: got ${g[i]}, expected ${w[i]}`;
      continue;
    }
    const d = Number.isFinite(g[i]) ? Math.abs(g[i] - w[i]) : Infinity;
    if (d > worst) [worst, worstAt] = [d, i];
  }
  if (worst / scale <= tol) return '';
  return `element ${worstAt}: got ${g[worstAt]}, expected ${w[worstAt]} (scaled error ${worst / scale})`;
}

function loadFamily(family) {
  const file = path.join(repoRoot, 'testdata/oracle', `${family}.json.gz`);
  return JSON.parse(gunzipSync(fs.readFileSync(file)).toString('utf8'));
}

async function runCase(c, mode, kernels) {
  const session = await Session.create(Buffer.from(c.model, 'base64'), { mode, kernels, intraOpThreads: 1 });
  try {
    const feeds = {};
    for (const t of c.inputs.map(decodeTensor)) feeds[t.name] = new Tensor(t.type, t.data, t.dims);
    const out = await session.run(feeds);
    return session.outputNames.map((name) => out[name]);
  } finally {
    session.release();
  }
}

const families = ['elementwise', 'shape', 'norms', 'recurrent', 'control', 'quant', 'vision-signal'];

describe.each(families)('oracle %s', (family) => {
  const doc = loadFamily(family);
  test('sampled cases match ONNX Runtime or the documented deviation', async () => {
    expect(doc.family).toBe(family);
    const sample = doc.cases.filter((_, i) => i % SAMPLE_EVERY === 0);
    const failures = [];
    for (const c of sample) {
      const want = (c.deviation ? c.deviation.expect : c.outputs).map(decodeTensor);
      const exactBytes = [];
      for (const kernels of ['scalar', 'v128']) {
        for (const mode of c.exact ? ['fast', 'exact'] : ['fast']) {
          const where = `${c.id} [${kernels}, ${mode}]`;
          let got;
          try {
            got = await runCase(c, mode, kernels);
          } catch (err) {
            failures.push(`${where}: threw ${err.message}`);
            continue;
          }
          want.forEach((w, i) => {
            const diff = got[i] ? compare(got[i], w, c.check, c.tol) : 'missing';
            const why = c.deviation ? ` (deviation: ${c.deviation.why})` : '';
            if (diff) failures.push(`${where}: output ${i} ${diff}${why}`);
          });
          if (mode === 'exact') exactBytes.push(got.map((t) => bytesOf(t.data)));
        }
      }
      if (exactBytes.length === 2 && exactBytes[0].some((b, i) => !b.equals(exactBytes[1][i])))
        failures.push(`${c.id}: exact-mode bytes differ between scalar and v128`);
    }
    expect(failures.slice(0, 30)).toEqual([]);
    expect(sample.length).toBeGreaterThan(0);
  });
});
