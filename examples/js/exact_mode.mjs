// Exact mode: run wide.onnx in fast and exact mode at 1, 4 and 16 threads and hash the output bytes. Within a mode the
// hashes agree across thread counts; exact-mode hashes also agree with native builds on any machine.
// Usage: node examples/js/exact_mode.mjs [MODELS_DIR].
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Model } from '../../npm/dist/index.mjs';

const models = process.argv[2] ?? 'examples/models';
// sin(i * 0.37f) rounded to float like the C++ program's. A platform sin: fine for a demo, but golden hashes never
// depend on a platform's math library.
const input = new Float32Array(256);
for (let i = 0; i < input.length; i++) input[i] = Math.sin(Math.fround(i * Math.fround(0.37)));

for (const mode of ['fast', 'exact']) {
  for (const threads of [1, 4, 16]) {
    const model = await Model.load(path.join(models, 'wide.onnx'), { mode, intraOpThreads: threads });
    const y = model.run(input);
    const bytes = new Uint8Array(y.buffer, y.byteOffset, y.byteLength);
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16).toUpperCase();
    const name = mode === 'fast' ? 'Fast' : 'Exact';
    console.log(`${name.padEnd(5)} threads=${String(threads).padEnd(2)} y[0]=${y[0]}  sha256=${hash}`);
    model.release();
  }
}
