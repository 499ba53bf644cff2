// Node support for Emscripten 3.1.6's ES-module output, which assumes CommonJS: its Node branch calls require() and
// reads __dirname, and it would fetch() the .wasm as a file: URL, which Node's fetch refuses. Runs inside the module
// factory, so these declarations shadow the globals for the generated code only. `_scriptDir` is the factory's
// import.meta.url (import.meta itself must not appear here: the minifier of this Emscripten rejects it).
var require, __dirname, fetch = globalThis.fetch;
if (typeof process == 'object' && typeof process.versions == 'object' && typeof process.versions.node == 'string') {
  require = Module['nodeRequire'] || process.getBuiltinModule('module').createRequire(_scriptDir);
  __dirname = require('path').dirname(require('url').fileURLToPath(_scriptDir));
  fetch = undefined;
  // Without locateFile the loader resolves the .wasm to a file: URL; with it, to a path next to this script.
  Module['locateFile'] = Module['locateFile'] || ((file, dir) => dir + file);
}
