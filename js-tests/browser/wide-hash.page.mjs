// wide.onnx in exact mode in the browser: the `--hash` line of `onemodel run examples/models/wide.onnx --mode exact`.
import { Session } from 'onemodel';
import { exactHashLines } from '../helpers/generated-input.mjs';

export default async function run(post, { kernels = 'v128' } = {}) {
  for (const line of await exactHashLines(Session, '/examples/models/wide.onnx', kernels)) post(line);
}
