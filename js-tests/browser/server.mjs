// A static file server on 127.0.0.1 (random port) for the browser runner and tests that fetch over HTTP.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '../helpers/paths.mjs';

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
};

// Maps a URL path to a file: under the directory of the longest matching mount prefix, else under `root`; null when
// the path escapes that directory.
function resolveFile(urlPath, root, mounts) {
  const prefix = Object.keys(mounts)
    .filter((p) => urlPath.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  const base = path.resolve(prefix === undefined ? root : mounts[prefix]);
  const file = path.join(base, path.normalize(`/${prefix === undefined ? urlPath : urlPath.slice(prefix.length)}`));
  return file.startsWith(base + path.sep) ? file : null;
}

// Serves `root` read-only on 127.0.0.1, plus `mounts` ({ '/models/': '/some/cache/dir' }) for files kept outside it,
// such as fetched models. Cross-origin isolation headers are always sent so a threaded build (which needs
// SharedArrayBuffer) runs under the same server.
export async function startServer(root = repoRoot, mounts = {}) {
  const server = createServer(async (req, res) => {
    const file = resolveFile(decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname), root, mounts);
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': 'no-store',
    };
    try {
      if (!file || !(await stat(file)).isFile()) throw new Error('not found');
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'Content-Type': MIME_TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, headers);
      res.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
