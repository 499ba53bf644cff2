// Output hashes in the CLI's `--hash` form: `<output name> <sha256 hex of the raw little-endian element bytes>`.
// Uses Web Crypto, so the same code runs in Node and in the browser.
export async function sha256Hex(bytes) {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function tensorBytes(tensor) {
  const { data } = tensor;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

// One line per output, in the order of `names`.
export async function hashLines(outputs, names = Object.keys(outputs)) {
  return Promise.all(names.map(async (name) => `${name} ${await sha256Hex(tensorBytes(outputs[name]))}`));
}
