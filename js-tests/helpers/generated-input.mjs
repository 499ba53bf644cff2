// The CLI's deterministic inputs (docs/cli.md "Generated inputs"), so browser rows feed the same bytes as
// `onemodel run` without --input. A float element is ((i*7919 + 13) mod 2001 - 1000) / 1000 divided in float32:
// Math.fround of the double quotient is that float32 quotient, since double rounding is innocuous for division.
import { Tensor } from 'onemodel';

function pattern(i) {
  return ((i * 7919 + 13) % 2001) - 1000;
}

// The integer types whose values fit a JS number, with their typed arrays.
const smallIntArrays = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
};

export function generatedInput(info) {
  const dims = info.dims === null ? [1] : info.dims.map((d) => (typeof d === 'number' ? d : 1));
  const count = dims.reduce((a, b) => a * b, 1);
  const ints = (make) => Array.from({ length: count }, (_, i) => make(((i * 7919 + 13) % 10)));
  switch (info.type) {
    case 'float32':
      return new Tensor('float32', Float32Array.from({ length: count }, (_, i) => Math.fround(pattern(i) / 1000)), dims);
    case 'float64':
      return new Tensor('float64', Float64Array.from({ length: count }, (_, i) => pattern(i) / 1000), dims);
    case 'int64':
      return new Tensor('int64', BigInt64Array.from(ints(BigInt)), dims);
    case 'uint64':
      return new Tensor('uint64', BigUint64Array.from(ints(BigInt)), dims);
    case 'bool':
      return new Tensor('bool', Uint8Array.from({ length: count }, (_, i) => i % 2), dims);
    default:
      if (info.type in smallIntArrays) return new Tensor(info.type, smallIntArrays[info.type].from(ints(Number)), dims);
      throw new Error(`generatedInput: element type ${info.type} is not generated in JS yet`);
  }
}

// Runs a model in exact mode with generated inputs; returns the CLI's `--hash` lines.
export async function exactHashLines(Session, url, kernels) {
  const session = await Session.create(url, { mode: 'exact', kernels });
  const feeds = Object.fromEntries(session.inputs.map((info) => [info.name, generatedInput(info)]));
  const outputs = await session.run(feeds);
  const { hashLines } = await import('./hash.mjs');
  const lines = await hashLines(outputs, session.outputNames);
  session.release();
  return lines;
}
