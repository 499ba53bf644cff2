// Runs in the browser (js-tests/browser/harness.html) and in Node (browser.test.mjs): string tensors through the npm
// package. Posts one `<output> <JSON of type, dims and data>` line per output of a model that normalises, joins and
// prints text.
import { Session, Tensor } from 'onemodel';
import { modelBytes, node, valueInfo } from '../helpers/onnx-writer.mjs';

const model = modelBytes({
  nodes: [
    node('StringNormalizer', ['words'], ['kept'], { case_change_action: 'UPPER', stopwords: { strings: ['monday'] } }),
    node('Concat', ['words', 'kept'], ['joined'], { axis: 0 }),
    node('Cast', ['numbers'], ['printed'], { to: 8 }),
  ],
  inputs: [valueInfo('words', 'string', ['n']), valueInfo('numbers', 'float32', ['m'])],
  outputs: [valueInfo('joined', 'string', [null]), valueInfo('printed', 'string', ['m'])],
});

export default async function run(post, { mode = 'exact' } = {}) {
  const session = await Session.create(model, { mode });
  const outputs = await session.run({
    words: new Tensor('string', ['Monday', 'çava', '日本', '🙂', '\uFEFF', '']),
    numbers: new Tensor('float32', Float32Array.from([0.1, -0, 1e-5, 1.5e20, NaN, -Infinity])),
  });
  for (const [name, { type, dims, data }] of Object.entries(outputs)) {
    post(`${name} ${JSON.stringify({ type, dims, data })}`);
  }
  session.release();
}
