// The JavaScript API of onemodel (shipped as dist/index.mjs), shaped like onnxruntime-web's InferenceSession:
//
//   const session = await Session.create(bytesOrPathOrUrl, { mode: 'exact' });
//   const out = await session.run({ features: new Tensor('float32', data, [2, 3]) });
//
// Everything crosses into wasm by copy and comes back as fresh typed arrays (bindings.cc), so results stay valid
// when the wasm memory grows. Errors from the library arrive as OneModelError carrying the C++ exception's fields.
// Emscripten's loader for onemodel.wasm, next to this file once built into npm/dist/ (web/CMakeLists.txt).
import createOneModel from './onemodel.mjs';
import { packOptional, packSequence, unpack } from './packed.mjs';

const IN_NODE = typeof process === 'object' && typeof process.versions?.node === 'string';

// Element types by name: the ONNX TensorProto code and the typed array holding the elements. bool holds 0/1 bytes;
// float16 and bfloat16 hold raw bit patterns; string elements are a plain array of JS strings, as in onnxruntime-web.
const TYPES = {
  float32: { code: 1, array: Float32Array },
  uint8: { code: 2, array: Uint8Array },
  int8: { code: 3, array: Int8Array },
  uint16: { code: 4, array: Uint16Array },
  int16: { code: 5, array: Int16Array },
  int32: { code: 6, array: Int32Array },
  int64: { code: 7, array: BigInt64Array },
  string: { code: 8, array: Array },
  bool: { code: 9, array: Uint8Array },
  float16: { code: 10, array: Uint16Array },
  float64: { code: 11, array: Float64Array },
  uint32: { code: 12, array: Uint32Array },
  uint64: { code: 13, array: BigUint64Array },
  bfloat16: { code: 16, array: Uint16Array },
};
const TYPE_NAMES = new Map(Object.entries(TYPES).map(([name, { code }]) => [code, name]));
// The type a typed array stands for when no type is named (bool and the 16-bit floats must be named).
const DEFAULT_TYPES = new Map(
  ['float32', 'uint8', 'int8', 'uint16', 'int16', 'int32', 'int64', 'float64', 'uint32', 'uint64'].map((name) => [
    TYPES[name].array,
    name,
  ]),
);

export class OneModelError extends Error {
  constructor({ category, kind, message, detail, inputName, offset, fieldPath, node, operators }) {
    super(message);
    this.name = 'OneModelError';
    this.category = category;
    this.kind = kind;
    this.detail = detail;
    this.inputName = inputName;
    this.offset = offset;
    this.fieldPath = fieldPath;
    this.node = node;
    this.operators = operators ?? [];
  }
}

export class Tensor {
  // new Tensor(type, data, dims?) or new Tensor(typedArray | string[], dims?); dims default to [data.length].
  constructor(typeOrData, dataOrDims, maybeDims) {
    let type, data, dims;
    if (typeof typeOrData === 'string') {
      [type, data, dims] = [typeOrData, dataOrDims, maybeDims];
    } else {
      [data, dims] = [typeOrData, dataOrDims];
      type = isStringArray(data) ? 'string' : DEFAULT_TYPES.get(data?.constructor);
      if (!type) {
        throw new TypeError('Tensor: pass a type name, a typed array of a numeric type or an array of strings');
      }
    }
    const spec = TYPES[type];
    if (!spec) throw new TypeError(`Tensor: unknown type '${type}'`);
    if (type === 'string') checkStrings(data, 'Tensor');
    else if (Array.isArray(data)) data = arrayToTyped(type, data);
    else if (!(data instanceof spec.array)) {
      throw new TypeError(`Tensor: a '${type}' tensor takes a ${spec.array.name}`);
    }
    dims = dims === undefined ? [data.length] : checkDims(dims, 'Tensor');
    const size = dims.reduce((a, b) => a * b, 1);
    if (size !== data.length) {
      throw new RangeError(`Tensor: dims [${dims}] hold ${size} elements but the data has ${data.length}`);
    }
    this.type = type;
    this.data = data;
    this.dims = Object.freeze(dims);
    this.size = size;
  }
}

// A non-empty array of strings (an empty array names no type).
function isStringArray(data) {
  return Array.isArray(data) && data.length > 0 && data.every((v) => typeof v === 'string');
}

// A string tensor keeps the caller's array (as onnxruntime-web does), so run() checks it again.
function checkStrings(data, where) {
  if (!Array.isArray(data)) throw new TypeError(`${where}: a 'string' tensor takes an array of strings`);
  const index = data.findIndex((v) => typeof v !== 'string');
  if (index >= 0) throw new TypeError(`${where}: element ${index} of a 'string' tensor is a ${typeof data[index]}`);
}

function arrayToTyped(type, values) {
  switch (type) {
    case 'int64': return BigInt64Array.from(values, BigInt);
    case 'uint64': return BigUint64Array.from(values, BigInt);
    case 'bool': return Uint8Array.from(values, (v) => (v ? 1 : 0));
    case 'float16':
    case 'bfloat16': throw new TypeError(`Tensor: pass '${type}' data as a Uint16Array of bit patterns`);
    default: return TYPES[type].array.from(values);
  }
}

function checkDims(dims, where) {
  const out = Array.from(dims ?? [], Number);
  if (!out.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new TypeError(`${where}: dims must be non-negative integers, got [${Array.from(dims ?? [])}]`);
  }
  return out;
}

function byteView(data) {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

// Strings cross the binding as their UTF-8 text back to back plus one uint32 byte length per element (bindings.cc
// strings_in and strings_out). A lone surrogate, which UTF-8 cannot encode, becomes U+FFFD.
const UTF8 = new TextEncoder();
// ignoreBOM keeps a leading U+FEFF as text; bytes that are no UTF-8 (a model can make them) decode as U+FFFD.
const FROM_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

function stringsToUtf8(strings, where) {
  checkStrings(strings, where);
  const encoded = strings.map((s) => UTF8.encode(s));
  const lengths = Uint32Array.from(encoded, (e) => e.length);
  const bytes = new Uint8Array(encoded.reduce((total, e) => total + e.length, 0));
  let offset = 0;
  for (const e of encoded) {
    bytes.set(e, offset);
    offset += e.length;
  }
  return { bytes, lengths: byteView(lengths) };
}

function stringsFromUtf8(bytes, lengthBytes) {
  const lengths = new Uint32Array(lengthBytes.buffer, lengthBytes.byteOffset, lengthBytes.length / 4);
  const out = new Array(lengths.length);
  let offset = 0;
  lengths.forEach((length, i) => {
    out[i] = FROM_UTF8.decode(bytes.subarray(offset, offset + length));
    offset += length;
  });
  return out;
}

// The wasm module is instantiated once per realm, on first use.
let modulePromise;
function wasmModule() {
  if (!modulePromise) {
    modulePromise = (async () => {
      const settings = {};
      // Hands the loader a CommonJS require for Node releases without process.getBuiltinModule (web/pre.js).
      if (IN_NODE) settings.nodeRequire = (await import('node:module')).createRequire(import.meta.url);
      return createOneModel(settings);
    })();
    // A failed load (say, a network error fetching the .wasm) is retried by the next call.
    modulePromise.catch(() => {
      modulePromise = undefined;
    });
  }
  return modulePromise;
}

function unwrap(result) {
  if (result.error) throw new OneModelError(result.error);
  return result.value;
}

// Shaped like the library's own ImportError(Io): "Io: <detail> (input <name>)".
function ioError(source, cause) {
  const detail = `cannot read the model: ${cause}`;
  return new OneModelError({
    category: 'ImportError',
    kind: 'Io',
    message: `Io: ${detail} (input ${source})`,
    detail,
    inputName: String(source),
  });
}

// Model bytes from a Uint8Array/ArrayBuffer/view, a path (Node) or a URL (fetched; in Node only http: and https:).
async function readSource(source) {
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return byteView(source);
  if (typeof source !== 'string' && !(source instanceof URL)) {
    throw new TypeError('expected model bytes (Uint8Array, ArrayBuffer), a path or a URL');
  }
  const text = String(source);
  if (IN_NODE && !/^https?:/i.test(text)) {
    const { readFile } = await import('node:fs/promises');
    try {
      const file = await readFile(source instanceof URL || text.startsWith('file:') ? new URL(text) : text);
      return new Uint8Array(file.buffer, file.byteOffset, file.byteLength); // a view: the bindings copy it once
    } catch (error) {
      throw ioError(text, error.message);
    }
  }
  let response;
  try {
    response = await fetch(source);
  } catch (error) {
    throw ioError(text, error.message);
  }
  if (!response.ok) throw ioError(text, `HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function nativeOptions(options = {}) {
  const {
    mode = 'fast',
    intraOpThreads = 0,
    maxCachedPlans = 16,
    optimizationLevel = 'all',
    kernels = (IN_NODE && process.env.ONEMODEL_KERNELS) || '',
    weightStorage = 'float32',
  } = options;
  if (mode !== 'fast' && mode !== 'exact') throw new RangeError(`mode must be 'fast' or 'exact', got '${mode}'`);
  if (!['none', 'basic', 'all'].includes(optimizationLevel)) {
    throw new RangeError(`optimizationLevel must be 'none', 'basic' or 'all', got '${optimizationLevel}'`);
  }
  for (const [name, value] of Object.entries({ intraOpThreads, maxCachedPlans })) {
    if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
      throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
    }
  }
  if (typeof kernels !== 'string') throw new TypeError('kernels must be a string');
  if (!['float32', 'binary16', 'bfloat16'].includes(weightStorage)) {
    throw new RangeError(`weightStorage must be 'float32', 'binary16' or 'bfloat16', got '${weightStorage}'`);
  }
  return { mode, intraOpThreads, maxCachedPlans, optimizationLevel, kernels, weightStorage };
}

// Frees the C++ object of a session that was never released once nothing refers to it.
const finalizer = new FinalizationRegistry((handle) => {
  handle.dispose();
  handle.delete();
});

// One C++ session or model, shared by a Model and its `session`.
class Native {
  constructor(handle) {
    this.handle = handle;
    finalizer.register(this, handle, this);
  }

  call(method, ...args) {
    if (!this.handle) {
      throw new OneModelError({ category: 'SessionError', kind: 'Disposed', message: 'the session was disposed' });
    }
    return unwrap(this.handle[method](...args));
  }

  release() {
    const handle = this.handle;
    if (!handle) return;
    this.handle = null;
    finalizer.unregister(this);
    try {
      unwrap(handle.dispose());
    } finally {
      handle.delete();
    }
  }
}

function tensorInfos(list) {
  return Object.freeze(
    list.map(({ name, kind, dtype, dims }) =>
      Object.freeze({ name, kind, type: TYPE_NAMES.get(dtype), dims: dims && Object.freeze(dims) }),
    ),
  );
}

// Sequences and optionals cross as one packed uint8 tensor (web/packed.mjs): arrays of Tensors and null in JS.
function asTensor(name, value) {
  // Tensors from another copy of this package (or plain {type, data, dims}) are checked like new ones.
  if (typeof value?.type !== 'string') throw new TypeError(`run: feed '${name}' must be a Tensor`);
  return value instanceof Tensor ? value : new Tensor(value.type, value.data, value.dims);
}

function toRecord(tensor) {
  if (tensor.type === 'string') {
    throw new OneModelError({
      category: 'SessionError',
      kind: 'Unsupported',
      message: 'string tensors cannot be elements of a sequence or an optional',
    });
  }
  return { code: TYPES[tensor.type].code, dims: [...tensor.dims], bytes: byteView(tensor.data) };
}

// The records of an array of Tensors and their element type (float32 for an empty array).
function sequenceRecords(name, values) {
  const tensors = values.map((v, i) => asTensor(`${name}[${i}]`, v));
  const code = tensors.length ? TYPES[tensors[0].type].code : TYPES.float32.code;
  tensors.forEach((t, i) => {
    if (TYPES[t.type].code !== code) {
      throw new TypeError(`run: feed '${name}' mixes ${tensors[0].type} and ${t.type} (element ${i})`);
    }
  });
  return { code, records: tensors.map(toRecord) };
}

function packedFeed(name, kind, value) {
  let bytes;
  if (kind === 'sequence') {
    if (!Array.isArray(value)) throw new TypeError(`run: feed '${name}' is a sequence: pass an array of Tensors`);
    const { code, records } = sequenceRecords(name, value);
    bytes = packSequence(code, records);
  } else if (value === null || value === undefined) {
    bytes = packOptional(null);
  } else {
    bytes = packOptional(Array.isArray(value) ? sequenceRecords(name, value) : toRecord(asTensor(name, value)));
  }
  return { name, dtype: TYPES.uint8.code, dims: [bytes.length], bytes };
}

function fromRecord({ code, dims, bytes }) {
  const type = TYPE_NAMES.get(code);
  const { array } = TYPES[type];
  const copy = bytes.slice(); // own, aligned storage
  return new Tensor(type, new array(copy.buffer, 0, copy.length / array.BYTES_PER_ELEMENT), dims);
}

// A packed output as an array of Tensors (sequence), or null / a Tensor / an array (optional).
function unpackedOutput(bytes) {
  const value = unpack(bytes);
  if (value.kind === 'sequence') return value.records.map(fromRecord);
  if (value.value === null) return null;
  return Array.isArray(value.value.records) ? value.value.records.map(fromRecord) : fromRecord(value.value);
}

// `loader` is the binding's loadSession or loadModel.
async function loadNative(loader, source, options) {
  const settings = nativeOptions(options);
  const [module, bytes] = await Promise.all([wasmModule(), readSource(source)]);
  return new Native(unwrap(module[loader](bytes, settings)));
}

const CONSTRUCT = Symbol('construct');

export class Session {
  #native;

  static async create(source, options = {}) {
    return new Session(CONSTRUCT, await loadNative('loadSession', source, options));
  }

  constructor(token, native) {
    if (token !== CONSTRUCT) throw new TypeError('use Session.create() to make a Session');
    this.#native = native;
    this.inputs = tensorInfos(native.call('inputs'));
    this.outputs = tensorInfos(native.call('outputs'));
    this.inputNames = Object.freeze(this.inputs.map((i) => i.name));
    this.outputNames = Object.freeze(this.outputs.map((o) => o.name));
    this.kernelPath = native.call('kernelPath');
  }

  // feeds: { name: Tensor }; fetches: the output names wanted (default all). Resolves to { name: Tensor }. A sequence
  // input or output is an array of Tensors; an optional one is null, a Tensor or an array.
  async run(feeds, fetches = this.outputNames) {
    if (typeof feeds !== 'object' || feeds === null) throw new TypeError('run: feeds must be an object of tensors');
    if (!Array.isArray(fetches) || !fetches.every((n) => typeof n === 'string')) {
      throw new TypeError('run: fetches must be an array of output names');
    }
    const kindOf = (infos, name) => infos.find((i) => i.name === name)?.kind ?? 'tensor';
    const inputs = Object.entries(feeds).map(([name, value]) => {
      const kind = kindOf(this.inputs, name);
      if (kind !== 'tensor') return packedFeed(name, kind, value);
      const tensor = asTensor(name, value);
      const feed = { name, dtype: TYPES[tensor.type].code, dims: [...tensor.dims] };
      if (tensor.type !== 'string') return { ...feed, bytes: byteView(tensor.data) };
      if (tensor.data.length !== tensor.size) {
        throw new RangeError(`run: feed '${name}' holds ${tensor.data.length} strings for dims [${tensor.dims}]`);
      }
      return { ...feed, ...stringsToUtf8(tensor.data, `run: feed '${name}'`) };
    });
    const results = this.#native.call('run', inputs, fetches);
    const out = {};
    results.forEach(({ dtype, dims, bytes, lengths }, i) => {
      if (kindOf(this.outputs, fetches[i]) !== 'tensor') {
        out[fetches[i]] = unpackedOutput(bytes);
        return;
      }
      const type = TYPE_NAMES.get(dtype);
      if (type === 'string') {
        out[fetches[i]] = new Tensor(type, stringsFromUtf8(bytes, lengths), dims);
        return;
      }
      const { array } = TYPES[type];
      const data = new array(bytes.buffer, bytes.byteOffset, bytes.length / array.BYTES_PER_ELEMENT);
      out[fetches[i]] = new Tensor(type, data, dims);
    });
    return out;
  }

  // Frees the weights; later calls throw OneModelError (kind 'Disposed').
  release() {
    this.#native.release();
  }
}

export class Model {
  #native;

  static async load(source, options = {}) {
    return new Model(CONSTRUCT, await loadNative('loadModel', source, options));
  }

  constructor(token, native) {
    if (token !== CONSTRUCT) throw new TypeError('use Model.load() to make a Model');
    this.#native = native;
    this.session = new Session(CONSTRUCT, native);
  }

  // One input, one output: values as a Float32Array, BigInt64Array (token ids), Int32Array or an array of numbers;
  // `shape` is optional (the model's declared dims, with one unknown extent inferred from the value count).
  run(values, shape = []) {
    if (Array.isArray(values)) values = Float32Array.from(values);
    const type = values instanceof Float32Array ? 'float32'
      : values instanceof BigInt64Array ? 'int64'
      : values instanceof Int32Array ? 'int32'
      : null;
    if (!type) throw new TypeError('Model.run takes a Float32Array, BigInt64Array, Int32Array or an array of numbers');
    return this.#native.call('runArray', byteView(values), TYPES[type].code, checkDims(shape, 'Model.run'));
  }

  release() {
    this.#native.release();
  }
}

// The exact-mode kernel hashes of the cross-target golden check (testdata/golden-exact.txt in the repository): GEMM
// sweeps, the seven exact transcendentals and softmax rows on this runtime. Equal lines on two machines mean their
// exact kernels compute the same bits. kernels: '' (best), 'scalar' or 'v128'.
export async function goldenKernelLines(kernels = '') {
  const module = await wasmModule();
  return unwrap(module.goldenKernelLines(kernels)).trimEnd().split('\n');
}

// The .onemodel form of a model (docs/format.md) from its bytes, a path (Node) or a URL: the bytes the native
// `onemodel convert` writes for the same model. Session.create and Model.load read both formats.
export async function convertToOneModel(source) {
  const [module, bytes] = await Promise.all([wasmModule(), readSource(source)]);
  return unwrap(module.convertToOneModel(bytes));
}

// CTC decoding (greedy and prefix beam search) in plain JavaScript, bit-identical to the C++ (docs/ctc.md).
export * as ctc from './ctc.mjs';

// wai-ops/1 integer graphs (docs/wai-ops.md): WHG1 graphs of exact integer operators. Tensor elements are
// BigInt64Array: a tensor of the reference profile acc64 holds any int64 (wai-ops/1 §3, §7.1), which neither
// Int32Array nor a Number can. Inputs may also be Int32Array or arrays of numbers/bigints.
const WAI_HANDLE = Symbol('wai handle');

function int64Array(values, what) {
  if (values instanceof BigInt64Array) return values;
  if (values instanceof Int32Array || Array.isArray(values)) return BigInt64Array.from(values, (v) => BigInt(v));
  throw new TypeError(`${what}: expected a BigInt64Array, an Int32Array or an array of integers`);
}

function waiTensorIn(tensor, what) {
  const shape = tensor?.shape;
  if (!Array.isArray(shape) || shape.length !== 3 || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new TypeError(`${what}: shape must be [C, H, W] of non-negative integers`);
  }
  return { shape, bytes: byteView(int64Array(tensor.data, what)) };
}

function waiTensorOut({ shape, bytes }) {
  return { shape, data: new BigInt64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8) };
}

// What a sequence of decodes carries (the state inputs after the last completed decode); a new State starts a
// new sequence.
class WaiState {
  started = false;
  tensors = [];
}

class WaiGraph {
  #handle;

  // Runs the load checks against options.profile ('acc64' by default, 'acc32', or 'none' to check no profile); a
  // refused graph throws OneModelError with category 'RefusalError', kind the refusal code ('model_mismatch',
  // 'too_large') and loadStep the failed check (1..8).
  static async load(source, { profile = 'acc64' } = {}) {
    if (!['acc64', 'acc32', 'none'].includes(profile)) throw new TypeError(`unknown profile ${profile}`);
    const [module, bytes] = await Promise.all([wasmModule(), readSource(source)]);
    const result = module.waiLoad(bytes, profile);
    if (result.error) throw Object.assign(new OneModelError(result.error), { loadStep: result.error.loadStep });
    return new WaiGraph(CONSTRUCT, result.value);
  }

  constructor(token, handle) {
    if (token !== CONSTRUCT) throw new TypeError('use wai.Graph.load() to make a Graph');
    this.#handle = handle;
    Object.assign(this, unwrap(handle.info()));
  }

  // The bounds certificate (wai-ops/1 §8.5): {json: its canonical JSON text, acc64, acc32, npu: the verdicts}.
  certify() {
    return unwrap(this.#handle.certificate());
  }

  [WAI_HANDLE]() {
    return this.#handle.clone();
  }

  release() {
    this.#handle.delete();
  }
}

class IntSession {
  #handle;

  constructor(graph) {
    if (!(graph instanceof WaiGraph)) throw new TypeError('IntSession takes a wai.Graph');
    this.#handle = graph[WAI_HANDLE]();
  }

  // One decode: inputs are the data inputs [{shape: [C, H, W], data}] in input-table order, scalars the
  // scalar values in table order. Returns {ok: true, outputs: [{shape, data: BigInt64Array}]} or
  // {ok: false, refusal, message}; `state` is updated only when the decode completes.
  run(inputs, scalars = [], state = new WaiState()) {
    if (!Array.isArray(inputs)) throw new TypeError('IntSession.run: inputs must be an array of tensors');
    const carried = { started: state.started, tensors: state.tensors.map((t) => waiTensorIn(t, 'state')) };
    const result = unwrap(
      this.#handle.run(
        inputs.map((t, i) => waiTensorIn(t, `input ${i}`)),
        byteView(int64Array(scalars, 'scalars')),
        carried,
      ),
    );
    if (result.refusal !== 'ok') return { ok: false, refusal: result.refusal, message: result.message };
    state.started = true;
    state.tensors = result.state.map(waiTensorOut);
    return { ok: true, outputs: result.outputs.map(waiTensorOut) };
  }

  release() {
    this.#handle.delete();
  }
}

export const wai = Object.freeze({ Graph: WaiGraph, IntSession, State: WaiState });
