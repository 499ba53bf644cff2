// Getting started: run classifier.onnx on one row of four features, then show the kernel path the session chose and
// the model's declared input. Usage: node examples/js/getting_started.mjs [MODELS_DIR] (default examples/models).
// In your own project the import is `from 'onemodel'`; here it points at the package in this repository.
import path from 'node:path';
import { Model } from '../../npm/dist/index.mjs';

const models = process.argv[2] ?? 'examples/models';
const model = await Model.load(path.join(models, 'classifier.onnx'));

// The input is declared [batch, 4]: four values make one row.
const probs = model.run(new Float32Array([5.1, 3.5, 1.4, 0.2]));

console.log(Array.from(probs, (p) => p.toFixed(4)).join(', '));
console.log(`Kernels: ${model.session.kernelPath}`);
for (const input of model.session.inputs) {
  console.log(`Input ${input.name}: ${input.type}, rank ${input.dims === null ? 'unknown' : input.dims.length}`);
}
model.release();
