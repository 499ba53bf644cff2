// A minimal ONNX ModelProto encoder, so tests can make the small graphs they need without Python. Only the fields
// used here are written (onnx.proto field numbers in the comments).
//
//   modelBytes({ opset: 17, nodes: [node('Add', ['a', 'a'], ['y'])],
//                inputs: [valueInfo('a', 'int64', ['n'])], outputs: [valueInfo('y', 'int64', ['n'])] })

export const ELEMENT_TYPES = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  string: 8,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
  bfloat16: 16,
};

class Writer {
  constructor() {
    this.bytes = [];
  }
  varint(value) {
    let v = BigInt.asUintN(64, BigInt(value));
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v) byte |= 0x80;
      this.bytes.push(byte);
    } while (v);
    return this;
  }
  tag(field, wireType) {
    return this.varint((field << 3) | wireType);
  }
  int(field, value) {
    return this.tag(field, 0).varint(value);
  }
  bytesField(field, data) {
    this.tag(field, 2).varint(data.length);
    for (const b of data) this.bytes.push(b);
    return this;
  }
  string(field, text) {
    return this.bytesField(field, new TextEncoder().encode(text));
  }
  message(field, writer) {
    return this.bytesField(field, writer.bytes);
  }
  float(field, value) {
    const buffer = new DataView(new ArrayBuffer(4));
    buffer.setFloat32(0, value, true);
    this.tag(field, 5);
    for (let i = 0; i < 4; ++i) this.bytes.push(buffer.getUint8(i));
    return this;
  }
}

// A TensorProto with raw little-endian data from a typed array, or a 'string' one from an array of strings (or of
// Uint8Arrays, written as they are).
export function tensor(name, type, dims, data) {
  const w = new Writer();
  for (const d of dims) w.int(1, d); // dims
  w.int(2, ELEMENT_TYPES[type]); // data_type
  if (type === 'string') {
    for (const text of data) {
      if (typeof text === 'string') w.string(6, text); // string_data
      else w.bytesField(6, text);
    }
  }
  w.string(8, name); // name
  if (type !== 'string') w.bytesField(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)); // raw_data
  return w;
}

// dims: numbers (fixed), strings (symbolic) or null (unknown); omit for an unknown rank.
export function valueInfo(name, type, dims) {
  const tensorType = new Writer().int(1, ELEMENT_TYPES[type]); // TypeProto.Tensor.elem_type
  if (dims) {
    const shape = new Writer();
    for (const d of dims) {
      const dim = new Writer();
      if (typeof d === 'number') dim.int(1, d); // dim_value
      else if (typeof d === 'string') dim.string(2, d); // dim_param
      shape.message(1, dim);
    }
    tensorType.message(2, shape);
  }
  return new Writer().string(1, name).message(2, new Writer().message(1, tensorType));
}

// A sequence of `type` tensors (TypeProto.sequence_type), or an optional of a tensor or of such a sequence
// (TypeProto.optional_type), for graph inputs and outputs.
const tensorTypeProto = (type) => new Writer().message(1, new Writer().int(1, ELEMENT_TYPES[type]));
const sequenceTypeProto = (type) => new Writer().message(4, new Writer().message(1, tensorTypeProto(type)));
export function sequenceInfo(name, type) {
  return new Writer().string(1, name).message(2, sequenceTypeProto(type));
}
export function optionalInfo(name, type, { sequence = false } = {}) {
  const inner = sequence ? sequenceTypeProto(type) : tensorTypeProto(type);
  return new Writer().string(1, name).message(2, new Writer().message(9, new Writer().message(1, inner)));
}

// attributes: { name: number (int) | {float: x} | number[] (ints) | string | {floats: x[]} | {strings: s[]} |
//   {tensor: tensor(...)} | {graph: graph(...)} }.
export function node(opType, inputs, outputs, attributes = {}, name = '') {
  const w = new Writer();
  for (const i of inputs) w.string(1, i);
  for (const o of outputs) w.string(2, o);
  if (name) w.string(3, name);
  w.string(4, opType);
  for (const [key, value] of Object.entries(attributes)) {
    const a = new Writer().string(1, key);
    if (typeof value === 'number') a.int(3, value).int(20, 2); // i, INT
    else if (typeof value === 'string') a.string(4, value).int(20, 3); // s, STRING
    else if (Array.isArray(value)) {
      for (const v of value) a.int(8, v);
      a.int(20, 7); // ints, INTS
    } else if (value.floats) {
      for (const v of value.floats) a.float(7, v);
      a.int(20, 6); // floats, FLOATS
    } else if (value.strings) {
      for (const v of value.strings) a.string(9, v);
      a.int(20, 8); // strings, STRINGS
    } else if (value.tensor) a.message(5, value.tensor).int(20, 4); // t, TENSOR
    else if (value.graph) a.message(6, value.graph).int(20, 5); // g, GRAPH
    else a.float(2, value.float).int(20, 1); // f, FLOAT
    w.message(5, a);
  }
  return w;
}

// A GraphProto: the main graph of a model, or a subgraph for a graph attribute.
export function graph({ nodes, inputs, outputs, initializers = [], name = 'test' }) {
  const g = new Writer();
  for (const n of nodes) g.message(1, n);
  g.string(2, name);
  for (const t of initializers) g.message(5, t);
  for (const i of inputs) g.message(11, i);
  for (const o of outputs) g.message(12, o);
  return g;
}

export function modelBytes({ opset = 17, irVersion = 8, nodes, inputs, outputs, initializers = [], name = 'test' }) {
  const main = graph({ nodes, inputs, outputs, initializers, name });
  const model = new Writer().int(1, irVersion); // ir_version
  model.message(8, new Writer().string(1, '').int(2, opset)); // opset_import
  model.message(7, main);
  return new Uint8Array(model.bytes);
}
