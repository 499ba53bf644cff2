// The same package in headless Chromium: the sample classifier in exact mode must give the bits Node gives.
import { expect, test } from 'vitest';
import { Session, Tensor } from 'onemodel';
import { runInChromium } from './browser/chromium.mjs';
import { hashLines } from './helpers/hash.mjs';
import { IRIS, modelPath } from './helpers/paths.mjs';

test('Chromium and Node agree bit for bit in exact mode, on both kernel paths', async () => {
  const session = await Session.create(modelPath('classifier.onnx'), { mode: 'exact' });
  const expected = await hashLines(await session.run({ x: new Tensor('float32', Float32Array.from(IRIS), [1, 4]) }));
  session.release();

  for (const kernels of ['v128', 'scalar']) {
    const lines = await runInChromium('js-tests/browser/classifier.page.mjs', { params: { kernels } });
    expect(lines).toContain(`# kernels ${kernels}`);
    const probs = lines.find((l) => l.startsWith('# probs ')).split(' ').slice(2).map(Number);
    expect(probs.map((p) => p.toFixed(4))).toEqual(['0.2323', '0.2813', '0.4864']);
    expect(lines.filter((l) => !l.startsWith('#'))).toEqual(expected);
  }
});
