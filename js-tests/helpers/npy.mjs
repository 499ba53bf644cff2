// Reads a little-endian, C-order .npy image (the recorded real-model inputs) into a Tensor of the npm package.
// Runs in Node and in the browser: it takes the file's bytes, not a path.
import { Tensor } from 'onemodel';

const DTYPES = { '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array] };

export function npyTensor(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(...bytes.subarray(0, 6));
  if (magic !== '\x93NUMPY' || bytes[6] !== 1) throw new Error('not a version 1 .npy image');
  const headerLength = view.getUint16(8, true);
  const header = new TextDecoder('latin1').decode(bytes.subarray(10, 10 + headerLength));
  const descr = /'descr': '([^']+)'/.exec(header)?.[1];
  if (!DTYPES[descr] || !/'fortran_order': False/.test(header)) throw new Error(`.npy header not handled: ${header}`);
  const dims = /'shape': \(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const [type, Array] = DTYPES[descr];
  const body = bytes.slice(10 + headerLength); // a copy, aligned for the typed array
  const count = dims.reduce((a, b) => a * b, 1);
  if (body.byteLength !== count * Array.BYTES_PER_ELEMENT) throw new Error('.npy body does not match its shape');
  return new Tensor(type, new Array(body.buffer, 0, count), dims);
}
