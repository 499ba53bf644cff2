// Oracle cases of the detection, sampling, linear-algebra and signal operators: NonMaxSuppression (corner and
// centre boxes, ties, thresholds, several batches and classes), RoiAlign (both coordinate modes, avg and max,
// fixed and adaptive sampling), GridSample (every mode, padding and align_corners), MaxUnpool (without
// output_shape: with it ONNX Runtime reads indices differently, ops-coverage.md "Settled semantics"), Det,
// Einsum (products, transposes, diagonals, sums, ellipses), DFT (opsets 17 and 20), STFT, the window functions,
// MelWeightMatrix and TfIdfVectorizer over integer tokens.

import { randomTensor } from '../lib.mjs';
import { pick, product, randInt, shuffle } from './gen-util.mjs';

const f32 = (values) => Float32Array.from(values, Math.fround);
const i64 = (values) => BigInt64Array.from(values, (v) => BigInt(v));
const input = (name, type, dims, data) => ({ name, type, dims, data });
const floats = (rng, dims, lo = -3, hi = 3) => randomTensor(rng, 'float32', dims, { lo, hi });

function single(id, opset, op, inputs, attrs, outputs, extra = {}) {
  return {
    id,
    opset,
    nodes: [{ op, inputs: inputs.map((t) => (t ? t.name : '')), outputs: outputs.map((o) => o.name), attrs }],
    inputs: inputs.filter((t) => t && !t.constant),
    initializers: inputs.filter((t) => t && t.constant),
    outputs,
    ...extra,
  };
}
const constant = (t) => ({ ...t, constant: true });

function* nonMaxSuppression(rng) {
  for (let v = 0; v < 60; ++v) {
    const batches = randInt(rng, 1, 2), classes = randInt(rng, 1, 3), n = pick(rng, [0, 1, 2, 5, 9, 17, 30]);
    const center = v % 3 === 2 ? 1 : 0;
    const boxes = [];
    for (let i = 0; i < batches * n; ++i) {
      const y = rng.uniform(0, 8), x = rng.uniform(0, 8), h = rng.uniform(0.5, 4), w = rng.uniform(0.5, 4);
      if (center) boxes.push(x, y, w, h);
      else if (rng.float() < 0.5) boxes.push(y, x, y + h, x + w);
      else boxes.push(y + h, x + w, y, x); // flipped corners
    }
    // Scores on a coarse grid, so equal scores (ties broken by box index) are common.
    const scores = Array.from({ length: batches * classes * n }, () => Math.round(rng.uniform(0, 20)) / 20);
    const max = randInt(rng, 0, n + 2);
    const iou = pick(rng, [0, 0.3, 0.5, 0.7, 1]);
    const thresholds = randInt(rng, 0, 3); // how many optional inputs follow the boxes and scores
    const ins = [input('boxes', 'float32', [batches, n, 4], f32(boxes)),
      input('scores', 'float32', [batches, classes, n], f32(scores))];
    if (thresholds > 0) ins.push(input('max', 'int64', [1], i64([max])));
    if (thresholds > 1) ins.push(input('iou', 'float32', [1], f32([iou])));
    if (thresholds > 2) ins.push(input('score', 'float32', [1], f32([pick(rng, [0, 0.2, 0.5])])));
    yield single(`NonMaxSuppression/${v}/b${batches}c${classes}n${n}/inputs${ins.length}${center ? '/center' : ''}`,
      11, 'NonMaxSuppression', ins, center ? { center_point_box: 1 } : {},
      [{ name: 'selected', type: 'int64' }], { check: 'int', exact: true });
  }
}

function* roiAlign(rng) {
  for (let v = 0; v < 40; ++v) {
    const opset = v % 4 === 0 ? 10 : 16;
    const [n, c, h, w] = [randInt(rng, 1, 2), randInt(rng, 1, 3), randInt(rng, 1, 9), randInt(rng, 1, 9)];
    const rois = [], batch = [];
    const count = randInt(rng, 1, 4);
    for (let r = 0; r < count; ++r) {
      const x1 = rng.uniform(-1, w), y1 = rng.uniform(-1, h);
      rois.push(x1, y1, x1 + rng.uniform(0, w), y1 + rng.uniform(0, h));
      batch.push(randInt(rng, 0, n - 1));
    }
    const attrs = { output_height: randInt(rng, 1, 4), output_width: randInt(rng, 1, 4),
      sampling_ratio: randInt(rng, 0, 3), spatial_scale: { float: pick(rng, [1, 0.5, 2]) }, mode: pick(rng, ['avg', 'max']) };
    if (opset >= 16) attrs.coordinate_transformation_mode = pick(rng, ['half_pixel', 'output_half_pixel']);
    yield single(`RoiAlign/${v}/opset${opset}/${attrs.mode}/${attrs.coordinate_transformation_mode ?? 'default'}`, opset,
      'RoiAlign', [input('X', 'float32', [n, c, h, w], floats(rng, [n, c, h, w])),
        input('rois', 'float32', [count, 4], f32(rois)), input('batch', 'int64', [count], i64(batch))],
      attrs, [{ name: 'Y', type: 'float32' }], { check: 'scaled', tol: 1e-4, exact: false });
  }
}

function* gridSample(rng) {
  let v = 0;
  for (const mode of ['nearest', 'bilinear', 'bicubic']) {
    for (const padding of ['zeros', 'border', 'reflection']) {
      for (const align of [0, 1]) {
        for (let k = 0; k < 3; ++k, ++v) {
          const [n, c, h, w] = [randInt(rng, 1, 2), randInt(rng, 1, 2), randInt(rng, 1, 6), randInt(rng, 1, 6)];
          const [ho, wo] = [randInt(rng, 1, 5), randInt(rng, 1, 5)];
          yield single(`GridSample/${v}/${mode}/${padding}/align${align}/in${h}x${w}`, 16, 'GridSample',
            [input('X', 'float32', [n, c, h, w], floats(rng, [n, c, h, w])),
              input('grid', 'float32', [n, ho, wo, 2], floats(rng, [n, ho, wo, 2], -1.4, 1.4))],
            { mode, padding_mode: padding, align_corners: align }, [{ name: 'Y', type: 'float32' }],
            { check: 'scaled', tol: 1e-4, exact: false });
        }
      }
    }
  }
}

function* maxUnpool(rng) {
  for (let v = 0; v < 20; ++v) {
    const spatial = randInt(rng, 1, 2);
    const kernel = Array.from({ length: spatial }, () => randInt(rng, 1, 3));
    const stride = kernel.map((k) => randInt(rng, 1, k + 1));
    const inDims = Array.from({ length: spatial }, () => randInt(rng, 1, 4));
    const outDims = inDims.map((d, i) => (d - 1) * stride[i] + kernel[i]);
    const [n, c] = [randInt(rng, 1, 2), randInt(rng, 1, 2)];
    const plane = product(inDims), outPlane = product(outDims);
    // Distinct positions in each plane (the unpooled plane is never smaller than the pooled one): a repeated
    // position would make the result depend on the write order.
    const indices = [];
    for (let p = 0; p < n * c; ++p) {
      const positions = shuffle(rng, Array.from({ length: outPlane }, (_, i) => i)).slice(0, plane);
      for (const q of positions) indices.push(p * outPlane + q);
    }
    const dims = [n, c, ...inDims];
    yield single(`MaxUnpool/${v}/k${kernel.join('x')}s${stride.join('x')}`, 11, 'MaxUnpool',
      [input('X', 'float32', dims, floats(rng, dims)), input('I', 'int64', dims, i64(indices))],
      { kernel_shape: kernel, strides: stride }, [{ name: 'Y', type: 'float32' }], { check: 'bits', exact: true });
  }
}

function* det(rng) {
  for (let v = 0; v < 30; ++v) {
    const m = randInt(rng, 1, 6);
    const batch = pick(rng, [[], [2], [2, 3]]);
    const dims = [...batch, m, m];
    const data = floats(rng, dims, -2, 2);
    if (v % 5 === 4 && m > 1) for (let j = 0; j < m; ++j) data[m + j] = data[j] * 2; // a singular first matrix
    yield single(`Det/${v}/m${m}/batch${batch.join('x') || '-'}`, 11, 'Det', [input('X', 'float32', dims, data)], {},
      [{ name: 'Y', type: 'float32' }], { check: 'scaled', tol: 1e-4, exact: true });
  }
}

const EQUATIONS = [
  ['ij,jk->ik', [[3, 4], [4, 5]]], ['bij,bjk->bik', [[2, 3, 4], [2, 4, 2]]], ['ij->ji', [[3, 5]]],
  ['ij->i', [[4, 6]]], ['ij->', [[3, 3]]], ['ii->i', [[4, 4]]], ['ii', [[5, 5]]], ['i,i', [[7], [7]]],
  ['i,j->ij', [[3], [4]]], ['...ij,...jk->...ik', [[2, 3, 4], [2, 4, 3]]], ['...ii->...i', [[3, 4, 4]]],
  ['bhqd,bhkd->bhqk', [[1, 2, 3, 4], [1, 2, 5, 4]]], ['ijk,jil->kl', [[2, 3, 4], [3, 2, 5]]],
  ['abc,cd,de->abe', [[2, 2, 3], [3, 4], [4, 2]]], ['ij,ij->ij', [[3, 4], [3, 4]]], ['ba', [[3, 2]]],
];

function* einsum(rng) {
  let v = 0;
  for (const [equation, shapes] of EQUATIONS) {
    for (let k = 0; k < 2; ++k, ++v) {
      const ins = shapes.map((dims, i) => input(`x${i}`, 'float32', dims, floats(rng, dims)));
      yield single(`Einsum/${v}/${equation}`, 12, 'Einsum', ins, { equation }, [{ name: 'Y', type: 'float32' }],
        { check: 'scaled', tol: 1e-5, exact: true });
    }
  }
}

function* dft(rng) {
  for (let v = 0; v < 40; ++v) {
    const opset = v % 2 ? 20 : 17;
    const components = randInt(rng, 1, 2);
    const dims = [randInt(rng, 1, 2), randInt(rng, 1, 12), randInt(rng, 1, 3), components];
    const axis = randInt(rng, 1, 2);
    const inverse = v % 5 === 3 ? 1 : 0;
    const onesided = !inverse && components === 1 && rng.float() < 0.4 ? 1 : 0;
    const length = rng.float() < 0.4 ? randInt(rng, 1, 14) : null;
    const ins = [input('x', 'float32', dims, floats(rng, dims))];
    ins.push(length === null ? null : constant(input('n', 'int64', [], i64([length]))));
    const attrs = { inverse, onesided };
    if (opset === 17) attrs.axis = axis;
    else ins.push(constant(input('axis', 'int64', [], i64([axis]))));
    while (ins[ins.length - 1] === null) ins.pop();
    yield single(`DFT/${v}/opset${opset}/c${components}/axis${axis}/n${length ?? '-'}${inverse ? '/inverse' : ''}${onesided ? '/onesided' : ''}`,
      opset, 'DFT', ins, attrs, [{ name: 'y', type: 'float32' }], { check: 'scaled', tol: 1e-4, exact: false });
  }
}

function* stft(rng) {
  for (let v = 0; v < 20; ++v) {
    const length = randInt(rng, 8, 40), frame = randInt(rng, 2, 8), step = randInt(rng, 1, 5);
    const windowed = v % 2 === 0;
    const dims = [randInt(rng, 1, 2), length, 1];
    const ins = [input('signal', 'float32', dims, floats(rng, dims)), constant(input('step', 'int64', [], i64([step])))];
    ins.push(windowed ? input('window', 'float32', [frame], floats(rng, [frame], 0, 1)) : null);
    if (!windowed || v % 4 === 0) ins.push(constant(input('frame', 'int64', [], i64([frame]))));
    yield single(`STFT/${v}/len${length}/frame${frame}/step${step}${windowed ? '/window' : ''}`, 17, 'STFT', ins,
      { onesided: v % 3 === 0 ? 0 : 1 }, [{ name: 'y', type: 'float32' }], { check: 'scaled', tol: 1e-4, exact: false });
  }
}

function* windows(rng) {
  for (const op of ['HannWindow', 'HammingWindow', 'BlackmanWindow']) {
    for (let v = 0; v < 8; ++v) {
      const size = pick(rng, [1, 2, 3, 7, 10, 16, 33]);
      const periodic = v % 2;
      const type = v % 4 < 2 ? 'float32' : 'float64';
      yield single(`${op}/${v}/size${size}/periodic${periodic}/${type}`, 17, op,
        [input('size', 'int64', [], i64([size]))], { periodic, output_datatype: type === 'float32' ? 1 : 11 },
        [{ name: 'w', type }], { check: 'scaled', tol: 1e-4, exact: false });
    }
  }
}

function* melWeightMatrix(rng) {
  for (let v = 0; v < 6; ++v) {
    // ONNX Runtime refuses an upper edge above the Nyquist frequency (the library drops the rows beyond it).
    const rate = pick(rng, [8000, 16000, 22050]);
    const ins = [input('bins', 'int64', [], i64([randInt(rng, 1, 10)])), input('dft', 'int64', [], i64([pick(rng, [8, 16, 64, 128])])),
      input('rate', 'int64', [], i64([rate])), input('lo', 'float32', [], f32([pick(rng, [0, 20, 300])])),
      input('hi', 'float32', [], f32([rate / 2 - pick(rng, [0, 500, 1000])]))];
    yield single(`MelWeightMatrix/${v}`, 17, 'MelWeightMatrix', ins.map(constant), {}, [{ name: 'y', type: 'float32' }],
      { check: 'scaled', tol: 1e-5, exact: false });
  }
}

function* tfIdf(rng) {
  for (let v = 0; v < 24; ++v) {
    const minLength = randInt(rng, 1, 2), maxLength = randInt(rng, minLength, 3);
    // A pool of distinct n-grams of every length up to maxLength over the tokens 0..5.
    const pool = [], counts = [];
    for (let n = 1; n <= maxLength; ++n) {
      counts.push(pool.length);
      const seen = new Set();
      for (let g = 0; g < randInt(rng, 0, 5); ++g) {
        const gram = Array.from({ length: n }, () => randInt(rng, 0, 5));
        if (seen.has(gram.join())) continue;
        seen.add(gram.join());
        pool.push(...gram);
      }
    }
    const grams = counts.reduce((total, start, i) => total + ((i + 1 < counts.length ? counts[i + 1] : pool.length) - start) / (i + 1), 0);
    if (grams === 0) continue;
    const indexes = shuffle(rng, Array.from({ length: grams }, (_, i) => i));
    const mode = pick(rng, ['TF', 'IDF', 'TFIDF']);
    const attrs = { min_gram_length: minLength, max_gram_length: maxLength, max_skip_count: randInt(rng, 0, 3), mode,
      ngram_counts: counts, ngram_indexes: indexes, pool_int64s: pool };
    if (mode !== 'TF' && rng.float() < 0.7)
      attrs.weights = { floats: Array.from({ length: grams }, () => Math.fround(rng.uniform(0.1, 3))) };
    const type = v % 2 ? 'int32' : 'int64';
    const dims = v % 3 === 0 ? [randInt(rng, 1, 12)] : [randInt(rng, 1, 3), randInt(rng, 1, 10)];
    const tokens = Array.from({ length: product(dims) }, () => randInt(rng, 0, 6));
    yield single(`TfIdfVectorizer/${v}/${mode}/${type}/grams${minLength}-${maxLength}/skip${attrs.max_skip_count}`, 9,
      'TfIdfVectorizer', [input('x', type, dims, type === 'int32' ? Int32Array.from(tokens) : i64(tokens))], attrs,
      [{ name: 'y', type: 'float32' }], { check: 'bits', exact: true });
  }
}

export function* cases(rng) {
  yield* nonMaxSuppression(rng);
  yield* roiAlign(rng);
  yield* gridSample(rng);
  yield* maxUnpool(rng);
  yield* det(rng);
  yield* einsum(rng);
  yield* dft(rng);
  yield* stft(rng);
  yield* windows(rng);
  yield* melWeightMatrix(rng);
  yield* tfIdf(rng);
}
