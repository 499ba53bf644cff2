// CTC decoding in JavaScript (web/ctc.mjs, the package's `ctc` namespace): the 40 reference cases of
// testdata/ctc/cases.json (tools/ctc_reference.py, an independent Python implementation), batches, refusals, and
// bit-for-bit equality with the C++ library through `onemodel ctc CASES.json` (native, and the wasm CLI when built).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as ctc from '../web/ctc.mjs';
import { nativeCli, repoRoot, wasmCliBin } from './helpers/paths.mjs';

const reference = JSON.parse(readFileSync(path.join(repoRoot, 'testdata/ctc/cases.json'), 'utf8'));
const { probability: PROBABILITY_TOLERANCE, logProbability: LOG_TOLERANCE } = reference.tolerances;

// JSON carries NaN and the infinities as strings.
const SPECIAL = { nan: NaN, inf: Infinity, '-inf': -Infinity };
const scoresOf = (c) => ({
  data: Float32Array.from(c.values, (v) => (typeof v === 'string' ? SPECIAL[v] : v)),
  dims: [c.steps, c.classes],
});
const common = (c) => ({ scores: c.scores, blank: c.blank });

function expectClose(got, want, tolerance) {
  expect(Math.abs(got - want)).toBeLessThanOrEqual(tolerance);
}

function expectHypothesis(got, want) {
  expect(got.labels).toEqual(want.labels);
  expectClose(got.logProbability, want.logProbability, LOG_TOLERANCE);
  if (want.confidence !== undefined) expectClose(got.confidence, want.confidence, LOG_TOLERANCE);
}

describe('the reference cases', () => {
  test('there are 40, with at least 10 exhaustive checks', () => {
    expect(reference.cases.length).toBe(40);
    expect(reference.cases.filter((c) => c.exhaustive).length).toBeGreaterThanOrEqual(10);
  });

  test.each(reference.cases.map((c) => [c.name, c]))('%s', (_, c) => {
    const scores = scoresOf(c);
    const g = ctc.greedyDecode(scores, common(c));
    expect(g.labels).toEqual(c.greedy.runs.map((r) => r.label));
    expect(g.runs.map(({ label, firstStep, lastStep }) => ({ label, firstStep, lastStep }))).toEqual(
      c.greedy.runs.map(({ label, firstStep, lastStep }) => ({ label, firstStep, lastStep })),
    );
    g.runs.forEach((run, i) => expectClose(run.confidence, c.greedy.runs[i].confidence, PROBABILITY_TOLERANCE));
    expectClose(g.confidence, c.greedy.confidence, PROBABILITY_TOLERANCE);
    expect(g.stepProbabilities.length).toBe(c.steps);
    g.stepProbabilities.forEach((p, t) => expectClose(p, c.greedy.stepProbabilities[t], PROBABILITY_TOLERANCE));

    const beam = ctc.beamSearch(scores, { ...common(c), beamWidth: c.beamWidth, topN: c.topN });
    expect(beam.length).toBe(c.beam.length);
    beam.forEach((h, i) => expectHypothesis(h, c.beam[i]));

    if (c.exhaustive) {
      const [best] = ctc.beamSearch(scores, { ...common(c), beamWidth: c.exhaustive.beamWidth });
      expectHypothesis(best, c.exhaustive.best);
    }
  });
});

test('batch items decode like the items alone, truncated to their lengths', () => {
  for (const c of reference.cases.filter((c) => c.steps >= 2)) {
    const { data } = scoresOf(c);
    const batch = new Float32Array(3 * data.length);
    for (let b = 0; b < 3; ++b) batch.set(data, b * data.length);
    const lengths = [c.steps, c.steps >> 1, 0];
    const options = { ...common(c), beamWidth: c.beamWidth, topN: c.topN, lengths };
    const dims = [3, c.steps, c.classes];
    const greedy = ctc.greedyDecodeBatch({ data: batch, dims }, options);
    const beams = ctc.beamSearchBatch({ data: batch, dims }, options);
    lengths.forEach((length, b) => {
      const alone = { data: data.subarray(0, length * c.classes), dims: [length, c.classes] };
      expect(greedy[b]).toEqual(ctc.greedyDecode(alone, options));
      expect(beams[b]).toEqual(ctc.beamSearch(alone, options));
    });
  }
});

test('greedy basics: blanks split runs, ties go low, NaN never wins, log-probabilities cap at 1', () => {
  const lp = Float32Array.from([-0.1, -3, -4, -2, -0.2, -3, -2, -0.3, -3, -0.05, -4, -4, -2, 0.5, -3]);
  const r = ctc.greedyDecode({ data: lp, dims: [5, 3] }, { scores: 'logProbabilities' });
  expect(r.runs.map(({ label, firstStep, lastStep }) => [label, firstStep, lastStep])).toEqual([
    [1, 1, 2],
    [1, 4, 4],
  ]);
  expectClose(r.runs[0].confidence, Math.exp(-0.2), 2e-7);
  expect(r.runs[1].confidence).toBe(1);

  const ties = Float32Array.from([1, 2, 2, NaN, 0, -1, NaN, NaN, NaN]);
  const t = ctc.greedyDecode({ data: ties, dims: [3, 3] }, { blank: 2 });
  expect(t.runs.map(({ label, firstStep, lastStep }) => [label, firstStep, lastStep])).toEqual([
    [1, 0, 1],
    [0, 2, 2],
  ]);
  expect(Number.isNaN(t.stepProbabilities[1])).toBe(true);
  expect(t.runs[0].confidence).toBe(t.stepProbabilities[0]);
  expect(ctc.greedyDecode({ data: new Float32Array(0), dims: [0, 7] }).confidence).toBe(0);
});

test('beam search edges: no steps, impossible steps, certain text', () => {
  const none = ctc.beamSearch({ data: new Float32Array(0), dims: [0, 3] }, { beamWidth: 4, topN: 2 });
  expect(none).toEqual([{ labels: [], logProbability: 0, confidence: 0 }]);
  const zero = Float32Array.from([-0.5, -1, -Infinity, -Infinity]);
  expect(ctc.beamSearch({ data: zero, dims: [2, 2] }, { scores: 'logProbabilities' })).toEqual([]);
  const certain = Float32Array.from([-Infinity, 0, 0, -Infinity, -Infinity, 0]);
  const [aa] = ctc.beamSearch({ data: certain, dims: [3, 2] }, { scores: 'logProbabilities', beamWidth: 2 });
  expect(aa).toEqual({ labels: [1, 1], logProbability: 0, confidence: 1 });
});

test('the deterministic exp and ln are accurate to 1e-15', () => {
  const { exp, ln, logAdd } = ctc.deterministicMath;
  let worst = 0;
  for (let x = -699.99; x <= 700; x += 0.0137) worst = Math.max(worst, Math.abs(exp(x) - Math.exp(x)) / Math.exp(x));
  for (let x = 1 + 1 / 65536; x <= 2; x += 1 / 65536) {
    worst = Math.max(worst, Math.abs(ln(x) - Math.log(x)) / Math.log(x));
  }
  expect(worst).toBeLessThan(1e-15);
  expect(exp(-700)).toBe(0);
  expect(exp(NaN)).toBe(0);
  expect(exp(1e6)).toBe(exp(700));
  expect(ln(0)).toBe(-Infinity);
  expect(logAdd(-3, -Infinity)).toBe(-3);
  expect(logAdd(0, -40.5)).toBe(0);
});

test('bad arguments are refused with the C++ messages', () => {
  const six = { data: new Float32Array(6), dims: [2, 3] };
  const refused = (fn, message) => expect(fn).toThrow(message);
  refused(() => ctc.greedyDecode({ data: new Float32Array(6), dims: [2, 4] }), 'ctc: scores hold 6 values');
  refused(() => ctc.greedyDecode({ data: new Float32Array(6), dims: [6] }), 'must have 2 dimensions');
  refused(() => ctc.greedyDecode({ data: new Float32Array(0), dims: [0, 0] }), 'classes at least 1');
  refused(() => ctc.greedyDecode(six, { blank: 3 }), 'ctc: blank 3 is not a class of 3');
  refused(() => ctc.greedyDecode(six, { blank: -1 }), 'blank -1');
  expect(() => ctc.greedyDecode({ data: [0, 0], dims: [1, 2] })).toThrow(TypeError);
  expect(() => ctc.greedyDecode(six, { scores: 'probabilities' })).toThrow(TypeError);
  expect(() => ctc.greedyDecode(six, { blank: 3 })).toThrow(RangeError);

  const twelve = { data: new Float32Array(12), dims: [2, 2, 3] };
  refused(() => ctc.greedyDecodeBatch(twelve, { lengths: [1] }), 'lengths has 1 entries for a batch of 2');
  refused(() => ctc.greedyDecodeBatch(twelve, { lengths: [1, 3] }), 'lengths[1] = 3 is outside [0, 2]');
  refused(() => ctc.beamSearchBatch(twelve, { lengths: [-1, 0] }), 'lengths[0] = -1');
  refused(() => ctc.beamSearchBatch({ data: new Float32Array(0), dims: [0, 2, 3] }, { beamWidth: 0 }), 'beam width 0');

  refused(() => ctc.beamSearch(six, { beamWidth: 0 }), 'beam width 0 is outside [1, 4096]');
  refused(() => ctc.beamSearch(six, { beamWidth: 4097 }), 'beam width 4097');
  refused(() => ctc.beamSearch(six, { beamWidth: 4, topN: 0 }), 'top_n 0');
  refused(() => ctc.beamSearch(six, { beamWidth: 4, topN: 5 }), 'top_n 5 is outside [1, beam width 4]');

  // 4097 * 4095 * 1 + 1 is exactly 2^24 and runs; one more step, or a wider beam, does not.
  const data = new Float32Array(2 * 4098);
  for (let i = 1; i < data.length; i += 2) data[i] = -Infinity;
  const options = { scores: 'logProbabilities', beamWidth: 4095 };
  const atLimit = { data: data.subarray(0, 2 * 4097), dims: [4097, 2] };
  expect(ctc.beamSearch(atLimit, options)).toEqual([
    { labels: [], logProbability: 0, confidence: 0 },
  ]);
  refused(() => ctc.beamSearch({ data, dims: [4098, 2] }, options), 'exceeds 2^24');
  refused(() => ctc.beamSearch(atLimit, { ...options, beamWidth: 4096 }), 'exceeds 2^24');

  const bad = new Float32Array(6);
  bad[4] = NaN;
  refused(() => ctc.beamSearch({ data: bad, dims: [2, 3] }), 'ctc: score [1, 1] is NaN');
  bad[4] = Infinity;
  refused(() => ctc.beamSearch({ data: bad, dims: [2, 3] }, { scores: 'logProbabilities' }), 'score [1, 1] is +inf');
  bad.set([-Infinity, -Infinity, -Infinity], 3);
  refused(() => ctc.beamSearch({ data: bad, dims: [2, 3] }), 'the logits of step 1 are all -inf');
  expect(() => ctc.beamSearch({ data: bad, dims: [2, 3] }, { scores: 'logProbabilities' })).not.toThrow();
  const padded = new Float32Array(6);
  padded[5] = NaN;
  expect(() => ctc.beamSearchBatch({ data: padded, dims: [1, 2, 3] }, { lengths: [1] })).not.toThrow();
  expect(() => ctc.greedyDecode({ data: bad, dims: [2, 3] })).not.toThrow();
});

// ---- bit-for-bit against the C++ library ----

const f32Bits = (v) => {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, v);
  return Number.isNaN(v) ? '7fc00000' : view.getUint32(0).toString(16).padStart(8, '0');
};
const f64Bits = (v) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
};

function beamLines(scores, options) {
  const lines = [`beam width=${options.beamWidth} top=${options.topN}`];
  try {
    for (const h of ctc.beamSearch(scores, options)) {
      const bits = `logp=${f64Bits(h.logProbability)} confidence=${f64Bits(h.confidence)}`;
      lines.push(`hyp labels=${h.labels.join(',')} ${bits}`);
    }
  } catch (error) {
    lines.push(`error ${error.message}`);
  }
  return lines;
}

// What `onemodel ctc` prints for a cases file, computed here in JavaScript.
function expectedCliOutput(cases) {
  const lines = [];
  for (const c of cases) {
    const scores = scoresOf(c);
    lines.push(`case ${c.name}`);
    const g = ctc.greedyDecode(scores, common(c));
    const runs = g.runs.map((r) => `${r.label}:${r.firstStep}:${r.lastStep}:${f32Bits(r.confidence)}`).join(';');
    const steps = Array.from(g.stepProbabilities, f32Bits).join(',');
    lines.push(`greedy labels=${g.labels.join(',')} runs=${runs} confidence=${f32Bits(g.confidence)} steps=${steps}`);
    lines.push(...beamLines(scores, { ...common(c), beamWidth: c.beamWidth, topN: c.topN }));
    if (c.exhaustive) lines.push(...beamLines(scores, { ...common(c), beamWidth: c.exhaustive.beamWidth, topN: 1 }));
  }
  return lines.join('\n') + '\n';
}

// A seeded generator (mulberry32) for larger cases than the reference's, including special values.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedCases() {
  const shapes = [
    // steps, classes, blank, kind, scale, beamWidth, topN, special
    [150, 30, 0, 'logits', 6, 16, 4, null],
    [80, 12, 11, 'logProbabilities', 4, 64, 5, '-inf'],
    [60, 6, 3, 'logits', 0, 8, 3, 'ties'],
    [20, 500, 0, 'logits', 3, 10, 2, null],
    [200, 5, 4, 'logProbabilities', 2, 128, 8, null],
    [40, 20, 0, 'logits', 1e30, 4, 2, null],
    [50, 9, 0, 'logits', 5, 6, 2, 'specials'],
  ];
  return shapes.map(([steps, classes, blank, kind, scale, beamWidth, topN, special], index) => {
    const next = random(1000 + index);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    const values = [];
    for (let t = 0; t < steps; ++t) {
      const row = [];
      for (let j = 0; j < classes; ++j) row.push(special === 'ties' ? Math.floor(next() * 3) : gauss() * scale);
      if (kind === 'logProbabilities') {
        const m = Math.max(...row);
        const log = Math.log(row.reduce((s, v) => s + Math.exp(v - m), 0));
        for (let j = 0; j < classes; ++j) row[j] = row[j] - m - log;
      }
      for (let j = 0; j < classes; ++j) {
        let v = Math.fround(row[j]);
        const u = next();
        if (special === '-inf' && u < 0.1) v = '-inf';
        const specials = ['nan', 'inf', '-inf', 1e-40, -1e-45, 3e38, -3e38];
        if (special === 'specials' && u < 0.04) v = specials[Math.floor(u * 175)];
        values.push(v);
      }
    }
    return { name: `generated${index}`, scores: kind, steps, classes, blank, beamWidth, topN, values };
  });
}

function runCli(command, args) {
  const result = spawnSync(command, args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// npm/dist/ctc.mjs comes with the first package build that has the decoder, so an older build is not compared.
const wasmBuilt = existsSync(path.join(repoRoot, 'npm/dist/ctc.mjs'));
const clis = [
  ['native', existsSync(nativeCli), (args) => runCli(nativeCli, args)],
  ['wasm', wasmBuilt, (args) => runCli(process.execPath, [wasmCliBin, ...args])],
];

for (const [name, built, cli] of clis) {
  // Skipped on a developer machine without that build; under CI a missing build fails.
  describe.skipIf(!built && !process.env.CI)(`bit-identical to the C++ library (${name} onemodel ctc)`, () => {
    let dir;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'onemodel-ctc-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    test('the reference cases', () => {
      const { status, stdout, stderr } = cli(['ctc', 'testdata/ctc/cases.json']);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      expect(stdout).toBe(expectedCliOutput(reference.cases));
    });

    test('larger generated cases with special values', () => {
      const cases = generatedCases();
      const file = path.join(dir, 'generated.json');
      writeFileSync(file, JSON.stringify({ cases }));
      const { status, stdout, stderr } = cli(['ctc', file]);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      const expected = expectedCliOutput(cases);
      expect(expected).toContain('error ctc: score'); // the special values reach the refusal path too
      expect(stdout).toBe(expected);
    });
  });
}

describe.skipIf(!wasmBuilt && !process.env.CI)('the npm package', () => {
  test("exports the same decoder as its 'ctc' namespace", async () => {
    const { ctc: packaged } = await import('onemodel');
    const c = reference.cases[5];
    expect(packaged.beamSearch(scoresOf(c), { ...common(c), beamWidth: 8, topN: 3 })).toEqual(
      ctc.beamSearch(scoresOf(c), { ...common(c), beamWidth: 8, topN: 3 }),
    );
  });
});
