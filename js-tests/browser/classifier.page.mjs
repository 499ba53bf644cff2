// Runs in the browser (js-tests/browser/harness.html): loads the sample classifier through the npm package, runs the
// getting-started input and posts one `<output> <sha256>` line per output, plus the kernel path and the values.
// params: { mode = 'exact', kernels = '' (best available) }.
import { Session, Tensor } from 'onemodel';
import { hashLines } from '../helpers/hash.mjs';

export default async function run(post, { mode = 'exact', kernels = '' } = {}) {
  const session = await Session.create('/examples/models/classifier.onnx', { mode, kernels });
  const outputs = await session.run({ x: new Tensor('float32', Float32Array.from([5.1, 3.5, 1.4, 0.2]), [1, 4]) });
  post(`# kernels ${session.kernelPath}`);
  post(`# probs ${Array.from(outputs.probs.data).join(' ')}`);
  for (const line of await hashLines(outputs)) post(line);
  session.release();
}
