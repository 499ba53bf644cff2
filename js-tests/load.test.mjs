// Model bytes cross into the wasm heap once (issue 7, docs/format.md): loading F bytes raises the heap's peak by the
// bytes themselves plus the session's own copy of the weights, never by a second copy of the file. Each measurement
// uses a fresh instance of the package's wasm module, whose heapPeakBytes() is dlmalloc's peak footprint.
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';
import createOneModel from '../npm/dist/onemodel.mjs';
import { modelBytes, node, tensor, valueInfo } from './helpers/onnx-writer.mjs';

const OPTIONS = {
  mode: 'fast', intraOpThreads: 1, maxCachedPlans: 16, optimizationLevel: 'all', kernels: '', weightStorage: 'float32',
};
const COUNT = 2 << 20; // an 8 MiB weight: the file is almost all weight, so F ≈ the weight's bytes
const weight = Float32Array.from({ length: COUNT }, (_, i) => (i % 1000) / 1000);
const onnx = modelBytes({
  nodes: [node('Add', ['x', 'w'], ['y'])],
  inputs: [valueInfo('x', 'float32', [COUNT])],
  outputs: [valueInfo('y', 'float32', [COUNT])],
  initializers: [tensor('w', 'float32', [COUNT], weight)],
});

const freshModule = () => createOneModel({ nodeRequire: createRequire(import.meta.url) });

// Heap peak growth of one call on a fresh module; the call's {value} or {error} result is checked and released.
async function peakGrowth(call) {
  const module = await freshModule();
  const before = module.heapPeakBytes();
  const result = call(module);
  expect(result.error).toBeUndefined();
  const growth = module.heapPeakBytes() - before;
  if (result.value?.delete) {
    result.value.dispose();
    result.value.delete();
  }
  return growth;
}

const converted = (await freshModule()).convertToOneModel(onnx).value;

test.each([
  ['ONNX', 'loadSession', onnx],
  ['.onemodel', 'loadSession', converted],
  ['ONNX', 'loadModel', onnx],
  ['.onemodel', 'loadModel', converted],
])('%s bytes through %s are copied into the heap once', async (_format, loader, bytes) => {
  const growth = await peakGrowth((module) => module[loader](bytes, OPTIONS));
  // The file (held by the session) and at most one copy of the weight the session builds from it: 2F. A second
  // copy of the file would make it 3F.
  expect(growth).toBeGreaterThan(0.9 * bytes.length); // free space the module already had may take a little
  expect(growth).toBeLessThan(2.5 * bytes.length);
});

test('convertToOneModel holds the input and the output, nothing more', async () => {
  const growth = await peakGrowth((module) => module.convertToOneModel(onnx));
  expect(growth).toBeGreaterThan(0.9 * (onnx.length + converted.length));
  expect(growth).toBeLessThan(2.5 * onnx.length);
});
