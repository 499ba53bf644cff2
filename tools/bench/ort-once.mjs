#!/usr/bin/env node
// One run of a model with onnxruntime-node at one thread (all optimisations), for tools/bench/run.mjs --memory to
// take the peak resident memory of a process that does nothing else; without inputs it loads onnxruntime-node only
// (the baseline of Node and the binding).
//   node tools/bench/ort-once.mjs [MODEL.onnx NAME=FILE.npy ...]
import ort from 'onnxruntime-node';
import { readNpy } from './common.mjs';

const [file, ...inputs] = process.argv.slice(2);
if (file) {
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const feeds = Object.fromEntries(inputs.map((arg) => {
    const [name, npy] = arg.split('=');
    const t = readNpy(npy);
    return [name, new ort.Tensor(t.type, t.data, t.dims)];
  }));
  await session.run(feeds);
}
