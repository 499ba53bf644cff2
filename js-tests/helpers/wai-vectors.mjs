// wai-ops/1 vector files (§14.1 JSON Lines, testdata/wai/) through the package's `wai` API: parsing, and the
// golden lines `onemodel wai run FILE --hash` prints (tools/cli/wai.cc), so Node and the browser can compare.
import { sha256Hex } from './hash.mjs';

// The vectors of a file's text (the first line is a header saying how the file was made).
export function parseVectors(text) {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line))
    .filter((v) => !v.header);
}

export const hexBytes = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));

// A vector's tensor: every integer is a decimal string.
export function tensorOf(t) {
  return { shape: t.shape.map(Number), data: BigInt64Array.from(t.data, (v) => BigInt(v)) };
}

export const decodeArgs = (d) => [d.inputs.map(tensorOf), BigInt64Array.from(d.scalars, (v) => BigInt(v))];

// The SHA-256 of an output as the golden rows record it: [C, H, W] then the elements, each a little-endian int64.
export function outputHash(tensor) {
  const words = new BigInt64Array(3 + tensor.data.length);
  words.set(tensor.shape.map(BigInt));
  words.set(tensor.data, 3);
  return sha256Hex(new Uint8Array(words.buffer));
}

// The golden lines of every vector in `text`, in the CLI's order and format.
export async function goldenLines(wai, text) {
  const lines = [];
  for (const v of parseVectors(text)) {
    const id = `wai/${v.id}`;
    let graph;
    try {
      graph = await wai.Graph.load(hexBytes(v.graph));
    } catch (error) {
      if (error.category !== 'RefusalError') throw error;
      lines.push(`${id} refused ${error.kind}`);
      continue;
    }
    const session = new wai.IntSession(graph);
    const state = new wai.State();
    for (const [k, d] of v.decodes.entries()) {
      const r = session.run(...decodeArgs(d), state);
      if (!r.ok) lines.push(`${id}/${k} refused ${r.refusal}`);
      for (const [i, out] of (r.outputs ?? []).entries()) lines.push(`${id}/${k}/${i} ${await outputHash(out)}`);
    }
    session.release();
    graph.release();
  }
  return lines;
}
