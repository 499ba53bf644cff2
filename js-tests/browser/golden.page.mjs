// The wasm-in-Chromium row of the golden hashes (tools/golden.sh): the kernel lines and the sample models' exact
// output hashes, in the same order and format as `onemodel golden-kernels` + `onemodel run --mode exact --hash`,
// then the WHG1 graphs' lines of `onemodel wai run testdata/wai/golden.jsonl --hash`.
import { Session, goldenKernelLines, wai } from 'onemodel';
import { exactHashLines } from '../helpers/generated-input.mjs';
import { hashLines } from '../helpers/hash.mjs';
import { npyTensor } from '../helpers/npy.mjs';
import { goldenLines as waiGoldenLines } from '../helpers/wai-vectors.mjs';

// realModels: [{ name, model: url, inputs: [{ name, url }] }] — the real models with their recorded inputs, one
// entry per recorded case (name <model>/<case> for a model recorded on several).
export default async function run(post, { kernels = 'v128', realModels = [] } = {}) {
  for (const line of await goldenKernelLines(kernels)) post(line);
  // The `models` list of tools/golden.sh, in its order.
  const models = ['examples/models/classifier', 'examples/models/scorer', 'examples/models/wide',
    'testdata/golden-models/elementwise', 'testdata/golden-models/shape', 'testdata/golden-models/norms',
    'testdata/golden-models/int8', 'testdata/golden-models/activations', 'testdata/golden-models/indexing',
    'testdata/golden-models/training', 'testdata/golden-models/linalg', 'testdata/golden-models/scatter10'];
  for (const model of models) {
    for (const line of await exactHashLines(Session, `/${model}.onnx`, kernels)) {
      post(`model/${model.split('/').pop()}/${line}`);
    }
  }
  for (const real of realModels) {
    const session = await Session.create(real.model, { mode: 'exact', kernels });
    const feeds = {};
    for (const input of real.inputs) {
      feeds[input.name] = npyTensor(new Uint8Array(await (await fetch(input.url)).arrayBuffer()));
    }
    for (const line of await hashLines(await session.run(feeds), session.outputNames)) post(`model/${real.name}/${line}`);
    session.release();
  }
  const whg1 = await (await fetch('/testdata/wai/golden.jsonl')).text();
  for (const line of await waiGoldenLines(wai, whg1)) post(line);
}
