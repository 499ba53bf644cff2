// The .onemodel format in wasm (docs/format.md): convertToOneModel gives the bytes the native `onemodel convert`
// writes, and Session.create reads the converted bytes to the same exact-mode outputs as the ONNX file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { convertToOneModel, OneModelError, Session, Tensor } from 'onemodel';
import { nativeCli, repoRoot } from './helpers/paths.mjs';

const models = ['examples/models/classifier.onnx', 'examples/models/wide.onnx', 'examples/models/scorer.onnx',
  'testdata/golden-models/elementwise.onnx', 'testdata/golden-models/norms.onnx'];

test('converted bytes start with the magic and convert deterministically', async () => {
  const onnx = readFileSync(path.join(repoRoot, models[0]));
  const a = await convertToOneModel(onnx);
  expect(a).toBeInstanceOf(Uint8Array);
  expect(new TextDecoder().decode(a.subarray(0, 8))).toBe('ONEMODEL');
  expect(await convertToOneModel(new Uint8Array(onnx))).toEqual(a);
  await expect(convertToOneModel(a.subarray(0, 100))).rejects.toThrow(OneModelError);
});

test('Session.create reads a converted model to the same exact outputs', async () => {
  const onnx = readFileSync(path.join(repoRoot, 'examples/models/classifier.onnx'));
  const x = () => new Tensor('float32', Float32Array.from([5.1, 3.5, 1.4, 0.2]), [1, 4]);
  const fromOnnx = await Session.create(onnx, { mode: 'exact' });
  const fromOwn = await Session.create(await convertToOneModel(onnx), { mode: 'exact' });
  const a = await fromOnnx.run({ x: x() });
  const b = await fromOwn.run({ x: x() });
  expect(new Uint8Array(b.probs.data.buffer)).toEqual(new Uint8Array(a.probs.data.buffer));
});

describe.skipIf(!existsSync(nativeCli) && !process.env.CI)('byte-identical to the native writer', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'onemodel-format-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  test.each(models)('%s', async (model) => {
    const out = path.join(work, `${path.basename(model)}.onemodel`);
    const native = spawnSync(nativeCli, ['convert', path.join(repoRoot, model), out], { encoding: 'utf8' });
    expect(native.status).toBe(0);
    const wasm = await convertToOneModel(readFileSync(path.join(repoRoot, model)));
    expect(Buffer.from(wasm).equals(readFileSync(out))).toBe(true);
  });
});
