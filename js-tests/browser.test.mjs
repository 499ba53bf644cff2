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

test('string tensors cross the same way in Chromium and in Node', async () => {
  const { default: run } = await import('./browser/strings.page.mjs');
  const expected = [];
  await run((line) => expected.push(line));
  expect(expected).toEqual([
    `joined ${JSON.stringify({
      type: 'string',
      dims: [11],
      data: ['Monday', 'çava', '日本', '🙂', '\uFEFF', '', 'ÇAVA', '日本', '🙂', '\uFEFF', ''],
    })}`,
    `printed ${JSON.stringify({
      type: 'string',
      dims: [6],
      data: ['0.1', '-0.0', '1e-05', '1.5e+20', 'NaN', '-INF'],
    })}`,
  ]);
  expect(await runInChromium('js-tests/browser/strings.page.mjs')).toEqual(expected);
});
