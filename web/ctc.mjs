// CTC decoding in plain JavaScript (docs/ctc.md), the twin of include/onemodel/ctc.h: greedy best-path decoding
// with run confidences, and prefix beam search. Exported from the package as the `ctc` namespace.
//
// The results equal the C++ library's bit for bit. Greedy probabilities reproduce the exact float32 softmax and
// exponential of the kernels: every float32 operation is a double operation rounded with Math.fround, which gives
// the float32 result because a double carries more than twice float32's precision, so for + - * / rounding twice
// equals rounding once (Figueroa 1995). The beam search runs in doubles with the same hand-made exp and ln as the
// C++ (only + - * /, floor and exponent-field bit work, in the same order), so every step rounds identically.

const f = Math.fround;

function fail(message) {
  throw new RangeError(`ctc: ${message}`);
}

// ---- float32 exact exponentials (exact-transcendentals.md, as src/kernels/math/transcendental.h runs them) ----

const SHIFTER = 12582912; // 1.5 * 2^23
const LOG2E = f(1.44269502);
const LN2_HI = f(0.693145751953125);
const LN2_LO = f(1.4286068e-6);
const EXP_POLY = [0.0013814613, 0.00836871, 0.04166839, 0.16666521, 0.49999994].map(f);
const EXP_OVERFLOW = f(88.72283172607422);
const EXP_UNDERFLOW = f(-103.97207641601562);
const EXP_NON_POSITIVE_FLUSH = f(-87.33654);

// 2^k for every k a float32 exponential may scale by, exact (repeated doubling and halving).
const POW2_BIAS = 160;
const POW2 = new Float64Array(2 * POW2_BIAS + 1);
POW2[POW2_BIAS] = 1;
for (let k = 1; k <= POW2_BIAS; ++k) {
  POW2[POW2_BIAS + k] = POW2[POW2_BIAS + k - 1] * 2;
  POW2[POW2_BIAS - k] = POW2[POW2_BIAS - k + 1] / 2;
}

// exp(x) = p * 2^n before scaling; n is the rounded x / ln2 (the shifter trick reads it exactly).
function expReduce(x) {
  const t = f(f(x * LOG2E) + SHIFTER);
  const n = f(t - SHIFTER);
  const r = f(f(x - f(n * LN2_HI)) - f(n * LN2_LO));
  let q = EXP_POLY[0];
  for (let i = 1; i < EXP_POLY.length; ++i) q = f(f(q * r) + EXP_POLY[i]);
  const p = f(1 + f(r + f(f(r * r) * q)));
  return [p, n];
}

// The exact float32 e^x over the whole range (the split scaling rounds a subnormal result once).
function exactExp(x) {
  if (x !== x) return NaN;
  if (x > EXP_OVERFLOW) return Infinity;
  if (x < EXP_UNDERFLOW) return 0;
  const [p, n] = expReduce(x);
  const a = n >> 1;
  const b = n - a;
  return f(f(p * POW2[POW2_BIAS + a]) * POW2[POW2_BIAS + b]);
}

// The exact float32 e^x for x <= 0 as softmax uses it: one scaling, +0 below the flush threshold.
function exactExpNonPositive(x) {
  if (x !== x) return NaN;
  if (x < EXP_NON_POSITIVE_FLUSH) return 0;
  const [p, n] = expReduce(x);
  return f(p * POW2[POW2_BIAS + n]);
}

// Softmax.Rows' value at `index` of one row (kernels-attention.md): max ignoring NaN, e = expNonPositive(x - max),
// the sum in sixteen partials by j mod 16 folded pairwise, then e[index] / sum.
const partials = new Float64Array(16);
function softmaxAt(data, offset, classes, index) {
  let m = -Infinity;
  for (let j = 0; j < classes; ++j) if (data[offset + j] > m) m = data[offset + j];
  partials.fill(0);
  for (let j = 0; j < classes; ++j) {
    partials[j % 16] = f(partials[j % 16] + exactExpNonPositive(f(data[offset + j] - m)));
  }
  for (let half = 8; half >= 1; half /= 2) {
    for (let t = 0; t < half; ++t) partials[t] = f(partials[t] + partials[t + half]);
  }
  return f(exactExpNonPositive(f(data[offset + index] - m)) / partials[0]);
}

// ---- double-precision exp, ln and log-add of the beam search (src/ctc/deterministic_math.h) ----

const bitsView = new DataView(new ArrayBuffer(8));
const EXP_COEFFICIENTS = [
  1 / 6227020800, 1 / 479001600, 1 / 39916800, 1 / 3628800, 1 / 362880, 1 / 40320, 1 / 5040, 1 / 720, 1 / 120,
  1 / 24, 1 / 6, 1 / 2, 1, 1,
];
const LN_COEFFICIENTS = [1 / 19, 1 / 17, 1 / 15, 1 / 13, 1 / 11, 1 / 9, 1 / 7, 1 / 5, 1 / 3, 1];

// 2^k for k in [-1010, 1010], the scalings detExp needs, written into the exponent field (low word 0).
const DET_POW2 = new Float64Array(2021);
for (let k = -1010; k <= 1010; ++k) {
  bitsView.setUint32(0, (k + 1023) * 1048576);
  bitsView.setUint32(4, 0);
  DET_POW2[k + 1010] = bitsView.getFloat64(0);
}

function detExp(x) {
  if (!(x > -700)) return 0;
  if (x > 700) x = 700;
  const k = Math.floor(x * 1.4426950408889634 + 0.5);
  const r = x - k * 6.9314718036912381649e-1 - k * 1.90821492927058770002e-10;
  let p = EXP_COEFFICIENTS[0];
  for (let n = 1; n < 14; ++n) p = p * r + EXP_COEFFICIENTS[n];
  return p * DET_POW2[k + 1010];
}

function detLn(x) {
  if (x !== x || x < 0) return NaN;
  if (x === 0) return -Infinity;
  if (x === Infinity) return x;
  let bias = 0;
  if (x < 2.2250738585072014e-308) {
    x = x * 18014398509481984; // 2^54: subnormals become normal
    bias = -54;
  }
  bitsView.setFloat64(0, x);
  const high = bitsView.getUint32(0);
  let e = (high >>> 20) - 1023 + bias;
  bitsView.setUint32(0, (high & 0xfffff) | 0x3ff00000);
  let m = bitsView.getFloat64(0);
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    e = e + 1;
  }
  const s = (m - 1) / (m + 1);
  const z = s * s;
  let q = LN_COEFFICIENTS[0];
  for (let j = 1; j < 10; ++j) q = q * z + LN_COEFFICIENTS[j];
  return e * 0.6931471805599453 + 2 * s * q;
}

function logAdd(a, b) {
  if (a < b) [a, b] = [b, a];
  if (b === -Infinity || b - a < -40) return a;
  return a + detLn(1 + detExp(b - a));
}

// ---- arguments ----

const INT32_MAX = 2147483647;
const SCORE_KINDS = ['logits', 'logProbabilities'];

// The scores as { data: Float32Array, dims } (a float32 Tensor of the package qualifies) with `rank` dims.
function readScores(scores, rank, name) {
  const data = scores?.data;
  if (!(data instanceof Float32Array)) {
    throw new TypeError(`ctc.${name}: scores must be a float32 tensor ({ data: Float32Array, dims })`);
  }
  const dims = Array.from(scores.dims ?? []);
  const shape = `[${dims.join(', ')}]`;
  if (dims.length !== rank) fail(`scores ${shape} must have ${rank} dimensions`);
  if (!dims.every((d) => Number.isInteger(d) && d >= 0 && d <= INT32_MAX) || dims[rank - 1] < 1) {
    fail(`scores ${shape}: extents must be in [0, 2^31) and classes at least 1`);
  }
  const needed = dims.reduce((a, b) => a * b, 1);
  if (needed !== data.length) fail(`scores hold ${data.length} values but ${shape} needs a different number`);
  return { data, dims };
}

function readCommon(options, classes, name) {
  const kind = options.scores ?? 'logits';
  if (!SCORE_KINDS.includes(kind)) throw new TypeError(`ctc.${name}: scores must be 'logits' or 'logProbabilities'`);
  const blank = options.blank ?? 0;
  if (!Number.isInteger(blank) || blank < 0 || blank >= classes) fail(`blank ${blank} is not a class of ${classes}`);
  return { logits: kind === 'logits', blank };
}

function readLengths(lengths, batch, steps) {
  if (lengths === undefined || lengths === null) return null;
  const list = Array.from(lengths, Number);
  if (list.length !== batch) fail(`lengths has ${list.length} entries for a batch of ${batch}`);
  list.forEach((length, b) => {
    if (!Number.isInteger(length) || length < 0 || length > steps) {
      fail(`lengths[${b}] = ${length} is outside [0, ${steps}]`);
    }
  });
  return list;
}

// ---- greedy ----

// The arg-max and run-maximum order: a number beats NaN, otherwise plain >.
const beats = (candidate, current) => candidate > current || (current !== current && candidate === candidate);

function greedyRows(data, offset, steps, classes, { logits, blank }) {
  const runs = [];
  const stepProbabilities = new Float32Array(steps);
  let previous = -1;
  for (let t = 0; t < steps; ++t) {
    const row = offset + t * classes;
    let best = 0;
    for (let j = 1; j < classes; ++j) if (beats(data[row + j], data[row + best])) best = j;
    let p;
    if (logits) {
      p = softmaxAt(data, row, classes, best);
    } else {
      p = exactExp(data[row + best]);
      if (p > 1) p = 1;
    }
    stepProbabilities[t] = p;
    if (best !== blank) {
      if (best === previous) {
        const run = runs[runs.length - 1];
        run.lastStep = t;
        if (beats(p, run.confidence)) run.confidence = p;
      } else {
        runs.push({ label: best, firstStep: t, lastStep: t, confidence: p });
      }
    }
    previous = best;
  }
  let sum = 0;
  for (const run of runs) sum = f(sum + run.confidence);
  const confidence = runs.length === 0 ? 0 : f(sum / f(runs.length));
  return { labels: runs.map((run) => run.label), runs, confidence, stepProbabilities };
}

export function greedyDecode(scores, options = {}) {
  const { data, dims } = readScores(scores, 2, 'greedyDecode');
  return greedyRows(data, 0, dims[0], dims[1], readCommon(options, dims[1], 'greedyDecode'));
}

export function greedyDecodeBatch(scores, options = {}) {
  const { data, dims } = readScores(scores, 3, 'greedyDecodeBatch');
  const [batch, steps, classes] = dims;
  const common = readCommon(options, classes, 'greedyDecodeBatch');
  const lengths = readLengths(options.lengths, batch, steps);
  const out = [];
  for (let b = 0; b < batch; ++b) {
    out.push(greedyRows(data, b * steps * classes, lengths ? lengths[b] : steps, classes, common));
  }
  return out;
}

// ---- prefix beam search ----

const MAX_BEAM_WIDTH = 4096;
const MAX_PREFIXES = 2 ** 24;

function readBeam(options, classes, name) {
  const common = readCommon(options, classes, name);
  const beamWidth = options.beamWidth ?? 16;
  const topN = options.topN ?? 1;
  if (!Number.isInteger(beamWidth) || beamWidth < 1 || beamWidth > MAX_BEAM_WIDTH) {
    fail(`beam width ${beamWidth} is outside [1, 4096]`);
  }
  if (!Number.isInteger(topN) || topN < 1 || topN > beamWidth) {
    fail(`top_n ${topN} is outside [1, beam width ${beamWidth}]`);
  }
  return { ...common, beamWidth, topN };
}

function checkBeam(data, offset, steps, classes, { logits, beamWidth }) {
  const perStep = beamWidth * (classes - 1);
  if (perStep > 0 && steps > Math.floor((MAX_PREFIXES - 1) / perStep)) {
    const sizes = `${steps} steps, beam width ${beamWidth}, ${classes} classes`;
    fail(`steps * beam width * (classes - 1) + 1 exceeds 2^24 (${sizes})`);
  }
  for (let t = 0; t < steps; ++t) {
    let anyFinite = false;
    for (let j = 0; j < classes; ++j) {
      const v = data[offset + t * classes + j];
      if (v !== v || v === Infinity) {
        fail(`score [${t}, ${j}] is ${v !== v ? 'NaN' : '+inf'}; the beam search needs finite scores or -inf`);
      }
      anyFinite ||= v !== -Infinity;
    }
    if (logits && !anyFinite) fail(`the logits of step ${t} are all -inf`);
  }
}

// lp(j) of one step: the given log-probabilities, or logits minus their log-sum-exp (summed in class order).
function logProbabilities(data, row, classes, logits, lp) {
  if (!logits) {
    for (let j = 0; j < classes; ++j) lp[j] = data[row + j];
    return;
  }
  let m = data[row];
  for (let j = 1; j < classes; ++j) if (data[row + j] > m) m = data[row + j];
  let sum = 0;
  for (let j = 0; j < classes; ++j) sum = sum + detExp(data[row + j] - m);
  const logSum = detLn(sum);
  for (let j = 0; j < classes; ++j) lp[j] = data[row + j] - m - logSum;
}

// The ranking: higher score first, equal scores in listing order (orders are unique, so the order is total).
const ranksBefore = (a, b) => (a.score !== b.score ? a.score > b.score : a.order < b.order);

// The best `width` candidates offered, in a binary heap whose root is the worst of them, so a candidate that
// cannot make the cut costs one comparison and no allocation.
class BestCandidates {
  constructor(width) {
    this.width = width;
    this.heap = [];
  }

  // Whether a candidate with this score and listing order would be kept.
  wants(score, order) {
    if (this.heap.length < this.width) return true;
    const worst = this.heap[0];
    return score !== worst.score ? score > worst.score : order < worst.order;
  }

  offer(candidate) {
    const heap = this.heap;
    if (heap.length < this.width) {
      let i = heap.push(candidate) - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!ranksBefore(heap[parent], heap[i])) break;
        [heap[parent], heap[i]] = [heap[i], heap[parent]];
        i = parent;
      }
    } else if (ranksBefore(candidate, heap[0])) {
      heap[0] = candidate;
      for (let i = 0; ; ) {
        let worst = i;
        const left = 2 * i + 1;
        if (left < heap.length && ranksBefore(heap[worst], heap[left])) worst = left;
        if (left + 1 < heap.length && ranksBefore(heap[worst], heap[left + 1])) worst = left + 1;
        if (worst === i) break;
        [heap[worst], heap[i]] = [heap[i], heap[worst]];
        i = worst;
      }
    }
  }

  // The kept candidates, best first.
  ranked() {
    return this.heap.sort((a, b) => (ranksBefore(a, b) ? -1 : 1));
  }
}

// Searches one item, like the C++ BeamSearch. Prefixes live in a tree where each text has one node (node 0 is
// the empty prefix; a child is looked up before it is created). Per step the beam is walked best first;
// candidates are listed at their first contribution, and the best beamWidth by total log probability are kept,
// equal scores in listing order.
function beamRows(data, offset, steps, classes, { logits, blank, beamWidth, topN }) {
  const parents = [-1];
  const labels = [-1];
  const children = new Map();
  const childOf = (parent, label) => {
    const key = parent * classes + label;
    let node = children.get(key);
    if (node === undefined) {
      node = parents.length;
      parents.push(parent);
      labels.push(label);
      children.set(key, node);
    }
    return node;
  };
  const lp = new Float64Array(classes);
  const beamIndex = []; // node -> index in the beam, -1 (or unset) elsewhere between steps
  let beam = [{ node: 0, pb: 0, pnb: -Infinity }];

  for (let t = 0; t < steps; ++t) {
    logProbabilities(data, offset + t * classes, classes, logits, lp);
    // Beam prefixes that extend another beam prefix by one label, in (parent, label) order.
    beam.forEach((p, i) => (beamIndex[p.node] = i));
    const links = [];
    beam.forEach((p, i) => {
      if (p.node === 0) return;
      const parent = beamIndex[parents[p.node]];
      if (parent !== undefined && parent >= 0) links.push({ parent, label: labels[p.node], child: i });
    });
    beam.forEach((p) => (beamIndex[p.node] = -1));
    links.sort((a, b) => a.parent - b.parent || a.label - b.label);

    // Contributions to beam prefixes accumulate in `own`; an extension that is not a beam prefix has one
    // contribution, so it is final when listed and goes straight to the selection.
    let listed = 0;
    const best = new BestCandidates(beamWidth);
    const own = beam.map((_, i) => ({ order: -1, from: i, label: -1, pb: -Infinity, pnb: -Infinity, score: 0 }));
    const addToBeamPrefix = (index, endsInBlank, value) => {
      if (value === -Infinity) return;
      const c = own[index];
      if (c.order < 0) c.order = listed++;
      if (endsInBlank) c.pb = logAdd(c.pb, value);
      else c.pnb = logAdd(c.pnb, value);
    };
    let link = 0;
    const lpBlank = lp[blank];
    for (let i = 0; i < beam.length; ++i) {
      const p = beam[i];
      const total = logAdd(p.pb, p.pnb);
      const last = p.node === 0 ? -1 : labels[p.node];
      addToBeamPrefix(i, true, total + lpBlank);
      if (last >= 0) addToBeamPrefix(i, false, p.pnb + lp[last]);
      for (let j = 0; j < classes; ++j) {
        if (j === blank) continue;
        let existing = -1;
        if (link < links.length && links[link].parent === i && links[link].label === j) existing = links[link++].child;
        const value = (j === last ? p.pb : total) + lp[j];
        if (value === -Infinity) continue;
        if (existing >= 0) {
          addToBeamPrefix(existing, false, value);
        } else {
          const order = listed++;
          // logAdd(-Infinity, value) is value.
          if (best.wants(value, order)) {
            best.offer({ order, from: i, label: j, pb: -Infinity, pnb: value, score: value });
          }
        }
      }
    }
    for (const c of own) {
      if (c.order < 0) continue; // received nothing
      c.score = logAdd(c.pb, c.pnb);
      best.offer(c);
    }
    beam = best.ranked().map((c) => {
      const from = beam[c.from].node;
      return { node: c.label < 0 ? from : childOf(from, c.label), pb: c.pb, pnb: c.pnb };
    });
  }

  return beam.slice(0, topN).map(({ node, pb, pnb }) => {
    const text = [];
    for (let n = node; n > 0; n = parents[n]) text.push(labels[n]);
    text.reverse();
    const logProbability = logAdd(pb, pnb);
    return {
      labels: text,
      logProbability,
      confidence: text.length === 0 ? 0 : detExp(logProbability / text.length),
    };
  });
}

export function beamSearch(scores, options = {}) {
  const { data, dims } = readScores(scores, 2, 'beamSearch');
  const [steps, classes] = dims;
  const beam = readBeam(options, classes, 'beamSearch');
  checkBeam(data, 0, steps, classes, beam);
  return beamRows(data, 0, steps, classes, beam);
}

export function beamSearchBatch(scores, options = {}) {
  const { data, dims } = readScores(scores, 3, 'beamSearchBatch');
  const [batch, steps, classes] = dims;
  const beam = readBeam(options, classes, 'beamSearchBatch');
  const lengths = readLengths(options.lengths, batch, steps);
  const stepsOf = (b) => (lengths ? lengths[b] : steps);
  for (let b = 0; b < batch; ++b) checkBeam(data, b * steps * classes, stepsOf(b), classes, beam);
  const out = [];
  for (let b = 0; b < batch; ++b) out.push(beamRows(data, b * steps * classes, stepsOf(b), classes, beam));
  return out;
}

// The deterministic double functions, for tests that compare them with the C++ ones.
export const deterministicMath = Object.freeze({ exp: detExp, ln: detLn, logAdd });
