// Locations of the repository's sample models and built tools, for the Node tests.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const modelPath = (name) => path.join(repoRoot, 'examples/models', name);
// The native CLI the wasm CLI is compared with (tools/build-native.sh release puts it here).
export const nativeCli = process.env.ONEMODEL_NATIVE_CLI ?? path.join(repoRoot, 'build/native/onemodel');
export const wasmCliBin = path.join(repoRoot, 'npm/bin/onemodel.mjs');

// The input of the getting-started example: one iris flower.
export const IRIS = Object.freeze([5.1, 3.5, 1.4, 0.2]);
