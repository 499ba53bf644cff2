#!/usr/bin/env node
// `npx onemodel run|info|...`: the native command-line tool compiled to WebAssembly. It reads and writes the host's
// files directly and takes the same flags, so its output matches the native `onemodel` byte for byte.
import { createRequire } from 'node:module';
import createOneModelCli from '../dist/onemodel-cli.mjs';

await createOneModelCli({
  arguments: process.argv.slice(2),
  thisProgram: 'onemodel',
  nodeRequire: createRequire(import.meta.url),
  // getenv() in wasm sees only what is copied in: pass the library's own variables (ONEMODEL_KERNELS, ...).
  preRun: [
    (module) => {
      for (const [name, value] of Object.entries(process.env)) {
        if (name.startsWith('ONEMODEL_')) module.ENV[name] = value;
      }
    },
  ],
});
