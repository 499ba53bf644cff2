// The wasm-in-Chromium row of the golden hashes (tools/golden.sh): the kernel lines and the sample models' exact
// output hashes, in the same order and format as `onemodel golden-kernels` + `onemodel run --mode exact --hash`.
import { Session, goldenKernelLines } from 'onemodel';
import { exactHashLines } from '../helpers/generated-input.mjs';

export default async function run(post, { kernels = 'v128' } = {}) {
  for (const line of await goldenKernelLines(kernels)) post(line);
  for (const model of ['classifier', 'scorer', 'wide']) {
    for (const line of await exactHashLines(Session, `/examples/models/${model}.onnx`, kernels)) {
      post(`model/${model}/${line}`);
    }
  }
}
