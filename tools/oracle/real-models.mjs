// Records ONNX Runtime's outputs for the real models of tools/real-models.tsv on fixed, seeded, realistic inputs,
// into the cache beside the models (never the repository):
//   <cache>/oracle/<model>/input-<i>.npy, ort-<j>.npy and manifest.tsv (kind, index, ONNX name, dtype, dims).
// native-tests/models/real_models_test.cc and tools/golden.sh read them. ONNX Runtime (onnxruntime-node 1.30.0,
// one thread, sequential) is a black box here.
//   node tools/oracle/real-models.mjs [--force] [MODEL ...]     (run tools/fetch-models.sh first)
// A model whose recording exists for the same model file (SHA-256 in the manifest) is skipped unless --force.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';

const cacheRoot = process.env.ONEMODEL_CACHE ?? path.join(os.homedir(), '.cache', 'onemodel');
const modelDir = path.join(cacheRoot, 'models');
const oracleDir = path.join(cacheRoot, 'oracle');

// mulberry32: a small seeded generator, so the inputs are the same on every machine and every run.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, range: (lo, hi) => lo + (hi - lo) * next(), int: (lo, hi) => lo + Math.floor((hi - lo) * next()) };
}

// A grey page with dark text-like strokes in lines: what the OCR detector and classifier are trained on.
// Returns RGB bytes, height x width x 3.
function textImage(r, height, width, lines) {
  const rgb = new Uint8Array(height * width * 3);
  for (let i = 0; i < height * width; ++i) {
    const v = 225 + r.int(0, 25);
    rgb[3 * i] = v;
    rgb[3 * i + 1] = v - r.int(0, 6);
    rgb[3 * i + 2] = v - r.int(0, 10);
  }
  for (let l = 0; l < lines; ++l) {
    const glyph = r.int(Math.max(8, Math.floor(height / lines / 3)), Math.max(12, Math.floor(height / lines / 1.5)));
    const y0 = Math.floor(((l + 0.5) * height) / lines) - (glyph >> 1);
    let x = r.int(2, Math.max(3, width >> 3));
    const end = width - r.int(2, Math.max(3, width >> 2));
    const ink = r.int(10, 80);
    while (x + glyph < end) {
      const w = r.int(glyph >> 1, glyph);
      for (let s = 0; s < 5; ++s) {  // a few strokes per glyph
        const vertical = r.next() < 0.5;
        const sx = x + r.int(0, w), sy = y0 + r.int(0, glyph);
        const len = r.int(glyph >> 2, glyph), thick = r.int(2, 4);
        for (let t = 0; t < len; ++t) {
          for (let k = 0; k < thick; ++k) {
            const px = vertical ? sx + k : sx + t, py = vertical ? sy + t : sy + k;
            if (px < 0 || py < 0 || px >= width || py >= height) continue;
            const o = 3 * (py * width + px);
            rgb[o] = rgb[o + 1] = rgb[o + 2] = ink + r.int(0, 20);
          }
        }
      }
      x += w + r.int(1, glyph >> 1) + (r.next() < 0.15 ? glyph : 0);
    }
  }
  return rgb;
}

// NCHW float32 of an RGB image with per-channel (v / 255 - mean) / std.
function normalise(rgb, height, width, mean, std) {
  const out = new Float32Array(3 * height * width);
  for (let c = 0; c < 3; ++c) {
    for (let i = 0; i < height * width; ++i) out[c * height * width + i] = (rgb[3 * i + c] / 255 - mean[c]) / std[c];
  }
  return out;
}

// Speech-like audio at 16 kHz in int16 scale (as openWakeWord feeds it): a gliding voiced tone with harmonics,
// syllable-shaped loudness, and noise.
function audio(r, samples) {
  const out = new Float32Array(samples);
  const f0 = r.range(110, 220);
  for (let i = 0; i < samples; ++i) {
    const t = i / 16000;
    const f = f0 * (1 + 0.1 * Math.sin(2 * Math.PI * 1.5 * t));
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
    let v = 0;
    for (let h = 1; h <= 5; ++h) v += Math.sin(2 * Math.PI * f * h * t) / h;
    out[i] = Math.round(6000 * envelope * v + r.range(-300, 300));
  }
  return out;
}

function npy(dtype, dims, data) {
  const descr = { float32: '<f4', int64: '<i8' }[dtype];
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

async function session(file) {
  return ort.InferenceSession.create(file, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
}

// Each model: its inputs as { name: ort.Tensor }.
const inputsOf = {
  det: async () => ({
    x: new ort.Tensor('float32', normalise(textImage(rng(1), 640, 640, 18), 640, 640, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), [1, 3, 640, 640]),
  }),
  cls: async () => ({
    x: new ort.Tensor('float32', normalise(textImage(rng(2), 48, 192, 1), 48, 192, [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]), [1, 3, 48, 192]),
  }),
  melspectrogram: async () => ({ input: new ort.Tensor('float32', audio(rng(3), 1760), [1, 1760]) }),
  // The embedding model reads 76 frames of openWakeWord's mel features (melspectrogram output / 10 + 2).
  'wake-embedding': async () => {
    const mel = await session(path.join(modelDir, 'melspectrogram.onnx'));
    const samples = 75 * 160 + 512;
    const out = await mel.run({ input: new ort.Tensor('float32', audio(rng(4), samples), [1, samples]) });
    const spec = out[mel.outputNames[0]];
    if (spec.dims[2] !== 76 || spec.dims[3] !== 32) throw new Error(`unexpected mel shape ${spec.dims}`);
    const features = Float32Array.from(spec.data, (v) => v / 10 + 2);
    return { input_1: new ort.Tensor('float32', features, [1, 76, 32, 1]) };
  },
};

const force = process.argv.includes('--force');
const wanted = process.argv.slice(2).filter((a) => a !== '--force');
const names = wanted.length ? wanted : Object.keys(inputsOf);
for (const name of names) {
  if (!inputsOf[name]) throw new Error(`no inputs defined for model '${name}' (known: ${Object.keys(inputsOf).join(', ')})`);
  const file = path.join(modelDir, `${name}.onnx`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run tools/fetch-models.sh first`);
  const dir = path.join(oracleDir, name);
  const modelSha = createHash('sha256').update(readFileSync(file)).digest('hex');
  const manifest = path.join(dir, 'manifest.tsv');
  if (!force && existsSync(manifest) && readFileSync(manifest, 'utf8').startsWith(`# ${name}.onnx sha256 ${modelSha};`)) {
    console.log(`real-models: ${name}: recorded (${dir})`);
    continue;
  }
  const started = Date.now();
  const s = await session(file);
  const inputs = await inputsOf[name]();
  const outputs = await s.run(inputs);
  mkdirSync(dir, { recursive: true });
  const rows = [`# ${name}.onnx sha256 ${modelSha}; onnxruntime-node 1.30.0, 1 thread, sequential, optimisation all`];
  const put = (kind, index, onnxName, tensor) => {
    writeFileSync(path.join(dir, `${kind}-${index}.npy`), npy(tensor.type, tensor.dims, tensor.data));
    rows.push([kind, index, onnxName, tensor.type, tensor.dims.join('x')].join('\t'));
  };
  Object.entries(inputs).forEach(([n, t], i) => put('input', i, n, t));
  s.outputNames.forEach((n, i) => put('ort', i, n, outputs[n]));
  writeFileSync(manifest, rows.join('\n') + '\n');
  console.log(`real-models: ${name}: ${rows.length - 1} tensors in ${dir} (${Date.now() - started} ms)`);
}
