// When a model won't load: unsupported.onnx uses two operators without a kernel, and wave.onnx uses Cos, which the
// cookbook describes as having no exact kernel. Print what each load reports.
// Usage: node examples/js/missing_operators.mjs [MODELS_DIR].
import path from 'node:path';
import { Model, OneModelError } from '../../npm/dist/index.mjs';

const models = process.argv[2] ?? 'examples/models';

// Loads a model, or prints the library's error (and, when asked, every operator it names) and returns null.
async function tryLoad(file, options, listOperators) {
  try {
    return await Model.load(path.join(models, file), options);
  } catch (e) {
    if (!(e instanceof OneModelError)) throw e;
    console.log(`${e.kind}: ${e.message}`);
    if (listOperators) for (const op of e.operators) console.log(`  missing: ${op}`);
    return null;
  }
}

// Every missing operator is listed at once, each with its opset.
(await tryLoad('unsupported.onnx', {}, true))?.release();

// Exact mode refuses operators without an exact kernel instead of approximating them.
const exact = await tryLoad('wave.onnx', { mode: 'exact' }, false);
if (exact) {
  console.log('wave.onnx loads in exact mode');
  exact.release();
}

// The same model in fast mode.
const fast = await tryLoad('wave.onnx', {}, false);
if (fast) {
  console.log(Array.from(fast.run(new Float32Array([0, 1, 2, 3])), (x) => x.toFixed(6)).join(', '));
  fast.release();
}
