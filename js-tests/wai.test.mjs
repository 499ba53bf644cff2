// The wai-ops/1 integer graphs through the wasm package (`wai` in web/onemodel.mjs): vector files written by the
// independent Python reference (tools/wai/reference.py) give the same outputs and refusals as in C++, state is
// carried only across completed decodes, and the golden lines equal the native CLI's.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { wai } from 'onemodel';
import { nativeCli, repoRoot } from './helpers/paths.mjs';
import { decodeArgs, goldenLines, hexBytes, parseVectors, tensorOf } from './helpers/wai-vectors.mjs';

const vectorFile = (name) => readFileSync(path.join(repoRoot, 'testdata/wai', name), 'utf8');
// Files covering the rounding modes, the convolutions, the 128-bit normalisations, movement with scalars, state,
// load refusals and run-time refusals.
const FILES = ['rescale.jsonl', 'conv.jsonl', 'conv_transpose.jsonl', 'igdn.jsonl', 'layernorm_c.jsonl',
  'softmax.jsonl', 'crop.jsonl', 'graphs.jsonl', 'golden.jsonl'];

describe.each(FILES)('%s', (file) => {
  test('every vector gives the recorded outputs and refusals', async () => {
    const vectors = parseVectors(vectorFile(file));
    expect(vectors.length).toBeGreaterThan(0);
    for (const v of vectors) {
      if (v.load !== 'ok') {
        await expect(wai.Graph.load(hexBytes(v.graph)), v.id).rejects.toMatchObject({
          category: 'RefusalError',
          kind: v.load,
        });
        continue;
      }
      const graph = await wai.Graph.load(hexBytes(v.graph));
      const session = new wai.IntSession(graph);
      const state = new wai.State();
      for (const [k, d] of v.decodes.entries()) {
        const r = session.run(...decodeArgs(d), state);
        if (d.expect.refuse) {
          expect(r, `${v.id} decode ${k}`).toMatchObject({ ok: false, refusal: d.expect.refuse });
          continue;
        }
        expect(r.ok, `${v.id} decode ${k}: ${r.message}`).toBe(true);
        expect(r.outputs, `${v.id} decode ${k}`).toEqual(d.expect.outputs.map(tensorOf));
      }
      session.release();
      graph.release();
    }
  });
});

test('a refused load names its code and load step', async () => {
  await expect(wai.Graph.load(new Uint8Array([0x57, 0x48, 0x47, 0x32]))).rejects.toMatchObject({
    category: 'RefusalError',
    kind: 'model_mismatch',
    loadStep: 1,
  });
});

test('a refused decode leaves the state as it was', async () => {
  const v = parseVectors(vectorFile('golden.jsonl')).find((x) => x.id === 'golden-state');
  const graph = await wai.Graph.load(hexBytes(v.graph));
  expect(graph).toMatchObject({ dataInputs: 1, stateInputs: 1, scalars: 0, outputs: 1 });
  const session = new wai.IntSession(graph);
  const state = new wai.State();
  const [inputs] = decodeArgs(v.decodes[0]);
  expect(session.run(inputs, [], state).ok).toBe(true);
  const before = state.tensors.map((t) => t.data.slice());
  // An input outside its check range [-1000, 1000] is refused (field_range) and changes nothing.
  const bad = { shape: inputs[0].shape, data: inputs[0].data.map(() => 1001n) };
  expect(session.run([bad], [], state)).toMatchObject({ ok: false, refusal: 'field_range' });
  expect(state.tensors.map((t) => t.data)).toEqual(before);
  // The second recorded decode still gives its recorded output: the refused one was never made.
  expect(session.run(decodeArgs(v.decodes[1])[0], [], state).outputs).toEqual(v.decodes[1].expect.outputs.map(tensorOf));
  session.release();
  graph.release();
});

test.skipIf(!existsSync(nativeCli) && !process.env.CI)('the golden lines equal the native CLI', async () => {
  const file = path.join(repoRoot, 'testdata/wai/golden.jsonl');
  const lines = await goldenLines(wai, readFileSync(file, 'utf8'));
  expect(lines.length).toBeGreaterThanOrEqual(9);
  const native = spawnSync(nativeCli, ['wai', 'run', file, '--hash'], { encoding: 'utf8' });
  expect(native.status, native.stderr).toBe(0);
  expect(lines).toEqual(native.stdout.trimEnd().split('\n'));
});

test.skipIf(!existsSync(nativeCli) && !process.env.CI)('certify() gives the native certificate bytes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wai-'));
  try {
    for (const v of parseVectors(vectorFile('golden.jsonl'))) {
      const file = path.join(dir, `${v.id}.whg1`);
      writeFileSync(file, hexBytes(v.graph));
      const native = spawnSync(nativeCli, ['wai', 'certify', file], { encoding: 'utf8' });
      expect(native.status, native.stderr).toBe(0);
      const graph = await wai.Graph.load(hexBytes(v.graph));
      const certificate = graph.certify();
      expect(certificate.json).toBe(native.stdout.split('\n')[0]);
      expect(certificate.acc64).toBe(true);
      graph.release();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
