// The JavaScript twin of the library's packed sequences and optionals (src/graph/packed_value.h, docs/api.md
// "Sequences and optionals"): a sequence or an optional crosses into a session as one uint8 tensor. Little-endian,
// every part at a multiple of 8 bytes from the start:
//
//   header    'OMPV', kind (1 sequence, 2 empty optional, 3 optional tensor, 4 optional sequence), 3 zero bytes
//   sequence  header, element type (int32 ONNX code), count (uint32), then count records
//   record    element type (int32), rank (uint32), rank extents (int64), row-major bytes, zero padding to 8
//
// Here an element is a plain record { code, dims, bytes } (bytes a Uint8Array of the row-major data); web/onemodel.mjs
// turns records into Tensors. Decoding checks every length before reading and throws RangeError("packed value: ...").

const TAG = [0x4f, 0x4d, 0x50, 0x56]; // 'OMPV'
export const KIND = Object.freeze({ sequence: 1, optionalNone: 2, optionalTensor: 3, optionalSequence: 4 });
const HEADER = 8;
const STORED = new Set([1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16]); // element types sessions store
const WIDTH = { 1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2 };
const MAX_RANK = 8;
const MAX_ELEMENTS = 2 ** 31 - 1;

const padded = (n) => Math.ceil(n / 8) * 8;
const recordSize = ({ dims, bytes }) => 8 + 8 * dims.length + padded(bytes.length);
const sequenceSize = (records) => HEADER + 8 + records.reduce((sum, r) => sum + recordSize(r), 0);

class Writer {
  constructor(size) {
    this.out = new Uint8Array(size);
    this.view = new DataView(this.out.buffer);
    this.pos = 0;
  }
  header(kind) {
    this.out.set(TAG, this.pos);
    this.out[this.pos + 4] = kind;
    this.pos += HEADER;
  }
  sequence(code, records) {
    this.header(KIND.sequence);
    this.view.setInt32(this.pos, code, true);
    this.view.setUint32(this.pos + 4, records.length, true);
    this.pos += 8;
    for (const r of records) this.record(r);
  }
  record({ code, dims, bytes }) {
    this.view.setInt32(this.pos, code, true);
    this.view.setUint32(this.pos + 4, dims.length, true);
    dims.forEach((d, i) => this.view.setBigInt64(this.pos + 8 + 8 * i, BigInt(d), true));
    this.pos += 8 + 8 * dims.length;
    this.out.set(bytes, this.pos);
    this.pos += padded(bytes.length);
  }
}

function checkRecords(code, records) {
  records.forEach((r, i) => {
    if (r.code !== code) throw new TypeError(`packed value: element ${i} has type ${r.code} in a sequence of ${code}`);
  });
}

/** A packed sequence of records sharing the element type `code` (an empty sequence keeps it). */
export function packSequence(code, records) {
  checkRecords(code, records);
  const w = new Writer(sequenceSize(records));
  w.sequence(code, records);
  return w.out;
}

/** A packed optional: `content` null (empty), a record (a tensor) or { code, records } (a sequence). */
export function packOptional(content) {
  if (content === null || content === undefined) {
    const w = new Writer(HEADER);
    w.header(KIND.optionalNone);
    return w.out;
  }
  if (Array.isArray(content.records)) {
    checkRecords(content.code, content.records);
    const w = new Writer(HEADER + sequenceSize(content.records));
    w.header(KIND.optionalSequence);
    w.sequence(content.code, content.records);
    return w.out;
  }
  const w = new Writer(HEADER + recordSize(content));
  w.header(KIND.optionalTensor);
  w.record(content);
  return w.out;
}

/** True when `bytes` starts with the tag and a known kind (the rest is checked by unpack). */
export function isPacked(bytes) {
  return bytes.length >= HEADER && TAG.every((b, i) => bytes[i] === b) && bytes[4] >= 1 && bytes[4] <= 4;
}

function fail(message) {
  throw new RangeError(`packed value: ${message}`);
}

// Validating reader; records' bytes are views into `bytes`.
class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
  }
  need(n, what) {
    const left = this.bytes.length - this.pos;
    if (left < n) fail(`${what} needs ${n} bytes, ${left} remain`);
  }
  header() {
    this.need(HEADER, 'the header');
    if (!TAG.every((b, i) => this.bytes[this.pos + i] === b)) fail('the tag is not "OMPV"');
    const kind = this.bytes[this.pos + 4];
    if (kind < 1 || kind > 4) fail(`unknown kind ${kind}`);
    if (this.bytes[this.pos + 5] | this.bytes[this.pos + 6] | this.bytes[this.pos + 7]) {
      fail("the header's padding is not zero");
    }
    this.pos += HEADER;
    return kind;
  }
  sequence() {
    this.need(8, 'the sequence header');
    const code = this.view.getInt32(this.pos, true);
    const count = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    if (!STORED.has(code)) fail(`sequence element type ${code} is not stored`);
    if (count > (this.bytes.length - this.pos) / 8) fail(`the sequence claims ${count} elements`);
    const records = [];
    for (let i = 0; i < count; ++i) records.push(this.record(code, `element ${i}`));
    return { code, records };
  }
  record(expected, what) {
    this.need(8, `${what}'s head`);
    const code = this.view.getInt32(this.pos, true);
    const rank = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    if (!STORED.has(code)) fail(`${what} has element type ${code}, which is not stored`);
    if (expected !== undefined && code !== expected) fail(`${what} has element type ${code} in a sequence of ${expected}`);
    if (rank > MAX_RANK) fail(`${what} has rank ${rank}, above ${MAX_RANK}`);
    this.need(8 * rank, `${what}'s extents`);
    const dims = [];
    let count = 1;
    for (let d = 0; d < rank; ++d) {
      const extent = this.view.getBigInt64(this.pos + 8 * d, true);
      if (extent < 0n || extent > BigInt(MAX_ELEMENTS)) fail(`${what} has the extent ${extent}`);
      dims.push(Number(extent));
      count *= Number(extent);
      if (count > MAX_ELEMENTS) fail(`${what} has more than 2^31-1 elements`);
    }
    this.pos += 8 * rank;
    const size = count * WIDTH[code];
    if (size > MAX_ELEMENTS) fail(`${what} has more than 2^31-1 bytes`);
    this.need(padded(size), `${what}'s data`);
    const bytes = this.bytes.subarray(this.pos, this.pos + size);
    for (let i = this.pos + size; i < this.pos + padded(size); ++i) {
      if (this.bytes[i] !== 0) fail(`${what}'s padding is not zero`);
    }
    this.pos += padded(size);
    return { code, dims, bytes };
  }
}

/**
 * Decodes a packed value: { kind: 'sequence', code, records } or { kind: 'optional', value } where value is null, a
 * record, or { code, records } for a sequence.
 */
export function unpack(bytes) {
  const r = new Reader(bytes);
  let result;
  switch (r.header()) {
    case KIND.sequence:
      result = { kind: 'sequence', ...r.sequence() };
      break;
    case KIND.optionalNone:
      result = { kind: 'optional', value: null };
      break;
    case KIND.optionalTensor:
      result = { kind: 'optional', value: r.record(undefined, "the optional's tensor") };
      break;
    default:
      if (r.header() !== KIND.sequence) fail("an optional's inner value is not a sequence");
      result = { kind: 'optional', value: r.sequence() };
  }
  if (r.pos !== bytes.length) fail(`${bytes.length - r.pos} bytes follow the end of the value`);
  return result;
}
