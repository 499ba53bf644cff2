// Records ONNX Runtime's outputs for the real models of tools/real-models.tsv, and for the models the project's
// scripts derive (the float32 twin of IS-Net, the quantized test models of tools/models/make_quantized_models.py),
// on fixed, seeded, realistic inputs, into the cache beside the models (never the repository):
//   <cache>/oracle/<model>/manifest.tsv, one row per tensor: kind (input|ort), index, ONNX name, dtype, dims, and for
//   a model recorded on several cases two more columns: the case, and for an input that is a previous case's output
//   (a recurrent state fed back) `<case>:<output name>`, else `-`. Rows come in case order; the tensors are
//   <kind>-<index>.npy, inside a <case>/ sub-directory when there is a case column.
// native-tests/models/{real_models,int8_models}_test.cc, tools/golden.sh, js-tests/browser/golden-chromium.mjs and
// tools/bench/run.mjs read them. ONNX Runtime (onnxruntime-node 1.30.0, one thread, sequential) is a black box here.
//   node tools/oracle/real-models.mjs [--force] [MODEL ...]     (run tools/fetch-models.sh first)
// A model whose recording exists for the same model file (SHA-256 in the manifest) is skipped unless --force.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

// Speech-like audio at 16 kHz in [-1, 1] (as voice-activity detectors take it): a low noise floor, then syllables
// of a voiced gliding tone with formant-shaped harmonics, a fricative noise burst, more syllables and a pause.
function speech(r, samples) {
  const out = new Float32Array(samples);
  const f0 = r.range(100, 200);
  // [start, end, kind] in seconds; the rest is silence (noise floor).
  const segments = [[0.12, 0.3, 'voiced'], [0.33, 0.4, 'fricative'], [0.42, 0.62, 'voiced'], [0.66, 0.8, 'voiced']];
  const formants = [[r.range(500, 800), 90], [r.range(1000, 1600), 110], [r.range(2200, 2800), 150]];
  let hiss = 0;
  for (let i = 0; i < samples; ++i) {
    const t = i / 16000;
    let v = r.range(-0.002, 0.002);
    for (const [start, end, kind] of segments) {
      if (t < start || t >= end) continue;
      const x = (t - start) / (end - start);
      const envelope = Math.sin(Math.PI * x) ** 0.6;
      if (kind === 'fricative') {
        const white = r.range(-1, 1);
        hiss = white - 0.7 * hiss;  // tilted towards high frequencies
        v += 0.08 * envelope * hiss;
        continue;
      }
      const f = f0 * (1.15 - 0.3 * x + 0.05 * Math.sin(2 * Math.PI * 5 * t));
      let voiced = 0;
      for (let h = 1; f * h < 4000; ++h) {
        let gain = 0.05;
        for (const [centre, width] of formants) gain += 1 / (1 + ((f * h - centre) / width) ** 2);
        voiced += (gain * Math.sin(2 * Math.PI * f * h * t)) / h;
      }
      v += 0.25 * envelope * voiced + 0.01 * envelope * r.range(-1, 1);
    }
    out[i] = Math.max(-1, Math.min(1, v));
  }
  return out;
}

// A photograph-like scene for background removal, RGB bytes height x width x 3: a lit wall (a smooth two-colour
// gradient with fine grain) behind a figure (a head and a torso as soft-edged ellipses, shaded and textured), so the
// model has a subject to segment.
function portrait(r, height, width) {
  const rgb = new Uint8Array(height * width * 3);
  const pick = (ranges) => ranges.map(([lo, hi]) => r.int(lo, hi));
  const wallA = pick([[150, 230], [150, 230], [150, 230]]), wallB = pick([[40, 120], [40, 120], [40, 120]]);
  const skin = pick([[170, 230], [120, 170], [90, 140]]), cloth = pick([[20, 90], [30, 120], [60, 160]]);
  const cx = width * r.range(0.4, 0.6);
  const parts = [  // [centre x, centre y, radius x, radius y, colour]
    [cx, height * 0.3, width * 0.12, height * 0.16, skin],
    [cx, height * 0.85, width * 0.3, height * 0.4, cloth],
  ];
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const t = (0.7 * x) / width + (0.3 * y) / height;
      let c = wallA.map((a, k) => a + (wallB[k] - a) * t + r.range(-6, 6));
      for (const [px, py, rx, ry, colour] of parts) {
        const d = Math.hypot((x - px) / rx, (y - py) / ry);
        if (d >= 1.03) continue;
        const alpha = Math.min(1, (1.03 - d) / 0.06);  // a soft edge a few pixels wide
        const shade = 0.75 + 0.25 * Math.cos((x - px) / rx);
        c = c.map((v, k) => v + (colour[k] * shade + r.range(-12, 12) - v) * alpha);
      }
      for (let k = 0; k < 3; ++k) rgb[3 * (y * width + x) + k] = Math.max(0, Math.min(255, Math.round(c[k])));
    }
  }
  return rgb;
}

// IS-Net's input: the portrait at 1024 x 1024, (v / 255 - 0.5) as @imgly/background-removal prepares it.
const isnetInput = () => {
  const image = normalise(portrait(rng(7), 1024, 1024), 1024, 1024, [0.5, 0.5, 0.5], [1, 1, 1]);
  return { input: new ort.Tensor('float32', image, [1, 3, 1024, 1024]) };
};

// Image-like inputs for the project's small classifier (tools/models/make_quantized_models.py): per image an 8x8x3
// normal field expanded 8 times plus noise of 0.25 (the calibration set's recipe, other draws), NCHW 64 x 64.
function cnnInput(seed, batch) {
  const r = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r.next())) * Math.cos(2 * Math.PI * r.next());
  const x = new Float32Array(batch * 3 * 64 * 64);
  for (let plane = 0; plane < batch * 3; ++plane) {
    const field = Array.from({ length: 64 }, normal);
    for (let i = 0; i < 64 * 64; ++i) x[plane * 4096 + i] = field[((i >> 9) << 3) + ((i & 63) >> 3)] + 0.25 * normal();
  }
  return { x: new ort.Tensor('float32', x, [batch, 3, 64, 64]) };
}

// Token ids in the encoder's vocabulary of 512, [batch, sequence]; row r is padded after sequence - 8r tokens.
function encoderInput(seed, batch, sequence) {
  const r = rng(seed);
  const ids = BigInt64Array.from({ length: batch * sequence }, () => BigInt(r.int(0, 512)));
  const kept = (i) => i % sequence < sequence - 8 * Math.floor(i / sequence);
  const mask = BigInt64Array.from({ length: batch * sequence }, (_, i) => (kept(i) ? 1n : 0n));
  return {
    input_ids: new ort.Tensor('int64', ids, [batch, sequence]),
    attention_mask: new ort.Tensor('int64', mask, [batch, sequence]),
  };
}

// Values in [-scale, scale] for a recurrent state that did not come from a run.
function randomState(r, dims, scale) {
  const count = dims.reduce((a, b) => a * b, 1);
  return new ort.Tensor('float32', Float32Array.from({ length: count }, () => r.range(-scale, scale)), dims);
}

const zeros = (dims) => new ort.Tensor('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)), dims);

// The cases of a voice-activity detector taking chunks of `chunk` samples of one speech stream: `zero` (zero
// state, inside a syllable), `state` (a random non-zero state) and `chain-0`..`chain-3` (four consecutive chunks
// from the silence into the first syllable, each fed the state the previous one returned).
// stateInputs: { input name: dims } of the recurrent state; stateOutputs: the outputs returning it, in that order.
function vadCases(seed, chunk, stateInputs, stateOutputs) {
  const r = rng(seed);
  const stream = speech(r, 16000);
  const sr = new ort.Tensor('int64', BigInt64Array.of(16000n), []);
  const audioAt = (seconds) => {
    const start = Math.round(seconds * 16000);
    return new ort.Tensor('float32', stream.slice(start, start + chunk), [1, chunk]);
  };
  const state = (make) => Object.fromEntries(Object.entries(stateInputs).map(([name, dims]) => [name, make(dims)]));
  const cases = [
    { name: 'zero', inputs: { input: audioAt(0.18), sr, ...state(zeros) } },
    { name: 'state', inputs: { input: audioAt(0.45), sr, ...state((dims) => randomState(r, dims, 0.9)) } },
  ];
  const chainStart = Math.max(0, 0.12 - (chunk * 1.5) / 16000);
  for (let k = 0; k < 4; ++k) {
    const inputs = { input: audioAt(chainStart + (k * chunk) / 16000), sr };
    const from = {};
    Object.keys(stateInputs).forEach((name, i) => {
      if (k === 0) inputs[name] = zeros(stateInputs[name]);
      else from[name] = `chain-${k - 1}:${stateOutputs[i]}`;
    });
    cases.push({ name: `chain-${k}`, inputs, from });
  }
  return cases;
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

// Each model: its inputs as { name: ort.Tensor }, or a list of cases { name, inputs, from } where `from` maps an
// input left out of `inputs` to the `<case>:<output>` of an earlier case it takes.
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
  // Silero VAD: the legacy model reads 1536 samples with LSTM states h and c, v5 512 samples with one state.
  'silero-vad-legacy': async () => vadCases(5, 1536, { h: [2, 1, 64], c: [2, 1, 64] }, ['hn', 'cn']),
  'silero-vad-v5': async () => vadCases(6, 512, { state: [2, 1, 128] }, ['stateN']),
  // IS-Net in float16 and its float32 twin (tools/models/widen_fp16_model.py) on the same input: the fp16 gate of
  // docs/models.md compares both engines' float16 outputs with the twin's.
  'isnet-medium': async () => isnetInput(),
  'isnet-medium-fp32': async () => isnetInput(),
  // The project's quantized test models and the float models they come from, each pair on the same inputs
  // (native-tests/models/int8_models_test.cc applies the int8 metric of oracles.md).
  cnn: async () => cnnInput(8, 8),
  'cnn-qdq': async () => cnnInput(8, 8),
  'cnn-dynamic': async () => cnnInput(8, 8),
  'encoder-fp32': async () => encoderInput(9, 4, 64),
  'encoder-dynamic': async () => encoderInput(9, 4, 64),
  'encoder-qdq': async () => encoderInput(9, 4, 64),
};

// Models written by the project's scripts rather than fetched, into the cache.
const script = (name) => path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'models', name);
const quantized = () => execFileSync('/usr/bin/python3', [script('make_quantized_models.py'), modelDir]);
const derived = {
  'isnet-medium-fp32': (file) =>
    execFileSync('/usr/bin/python3', [script('widen_fp16_model.py'), path.join(modelDir, 'isnet-medium.onnx'), file]),
  cnn: quantized,
  'cnn-qdq': quantized,
  'cnn-dynamic': quantized,
  'encoder-fp32': quantized,
  'encoder-dynamic': quantized,
  'encoder-qdq': quantized,
};

const force = process.argv.includes('--force');
const wanted = process.argv.slice(2).filter((a) => a !== '--force');
const names = wanted.length ? wanted : Object.keys(inputsOf);
for (const name of names) {
  if (!inputsOf[name]) throw new Error(`no inputs defined for model '${name}' (known: ${Object.keys(inputsOf).join(', ')})`);
  const file = path.join(modelDir, `${name}.onnx`);
  if (derived[name]) derived[name](file);  // always remade (seeded, so the same bytes unless the script changed)
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
  const made = await inputsOf[name]();
  const multi = Array.isArray(made);
  const cases = multi ? made : [{ name: '', inputs: made }];
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const rows = [`# ${name}.onnx sha256 ${modelSha}; onnxruntime-node 1.30.0, 1 thread, sequential, optimisation all`];
  const outputsOf = {};
  for (const c of cases) {
    const inputs = { ...c.inputs };
    for (const [input, source] of Object.entries(c.from ?? {})) {
      const [sourceCase, output] = source.split(':');
      inputs[input] = outputsOf[sourceCase][output];
    }
    const outputs = await s.run(inputs);
    outputsOf[c.name] = outputs;
    const caseDir = path.join(dir, c.name);
    mkdirSync(caseDir, { recursive: true });
    const put = (kind, index, onnxName, tensor) => {
      writeFileSync(path.join(caseDir, `${kind}-${index}.npy`), npy(tensor.type, tensor.dims, tensor.data));
      const row = [kind, index, onnxName, tensor.type, tensor.dims.length ? tensor.dims.join('x') : 'scalar'];
      if (multi) row.push(c.name, (kind === 'input' && c.from?.[onnxName]) || '-');
      rows.push(row.join('\t'));
    };
    s.inputNames.forEach((n, i) => put('input', i, n, inputs[n]));
    s.outputNames.forEach((n, i) => put('ort', i, n, outputs[n]));
  }
  writeFileSync(manifest, rows.join('\n') + '\n');
  console.log(`real-models: ${name}: ${cases.length} case(s), ${rows.length - 1} tensors in ${dir} (${Date.now() - started} ms)`);
}
