// A small npm registry on 127.0.0.1 for consumer-test.mjs: it serves the
// tarballs it is given (the packed seamguard and its platform packages,
// which are not published) and passes every other request on to the npm
// registry, so that npm, pnpm, yarn and bun install a project that
// depends on seamguard as they would from the registry, with nothing
// published.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { request } from 'node:https';
import { gunzipSync } from 'node:zlib';

const UPSTREAM = 'https://registry.npmjs.org';

/** The package.json inside an npm tarball (a gzipped tar whose files are under package/). */
export function manifestOf(tarball) {
  const tar = gunzipSync(readFileSync(tarball));
  for (let offset = 0; offset + 512 <= tar.length;) {
    const name = tar.subarray(offset, offset + 100).toString('utf8').replace(/\0.*$/s, '');
    if (!name) break;
    const size = Number.parseInt(tar.subarray(offset + 124, offset + 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    if (name === 'package/package.json') return JSON.parse(tar.subarray(offset + 512, offset + 512 + size).toString('utf8'));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${tarball} has no package/package.json`);
}

/**
 * Starts the registry with the given tarballs; resolves to its URL (ending
 * in a slash), the requests it answered, and close().
 */
export async function startRegistry(tarballs) {
  const local = new Map();
  for (const tarball of tarballs) {
    const manifest = manifestOf(tarball);
    const bytes = readFileSync(tarball);
    local.set(manifest.name, {
      manifest,
      bytes,
      shasum: createHash('sha1').update(bytes).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    });
  }
  const served = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const path = decodeURIComponent(url.pathname).replace(/^\/+/, '');
    // Tarballs where the npm registry keeps them, <name>/-/<name>-<version>.tgz
    // (yarn 4 records any other address in its lockfile).
    const tarball = /^([^@/][^/]*)\/-\/(.+\.tgz)$/.exec(path);
    if (tarball && local.has(tarball[1])) {
      const entry = local.get(tarball[1]);
      if (tarball[2] !== `${entry.manifest.name}-${entry.manifest.version}.tgz`) return void res.writeHead(404).end();
      served.push(`tarball ${entry.manifest.name}`);
      return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': entry.bytes.length }).end(entry.bytes);
    }
    const entry = local.get(path);
    if (entry) {
      served.push(`metadata ${path}`);
      const { manifest } = entry;
      const base = `http://${req.headers.host}/`;
      const version = {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        dist: { tarball: `${base}${manifest.name}/-/${manifest.name}-${manifest.version}.tgz`, shasum: entry.shasum, integrity: entry.integrity },
      };
      const body = JSON.stringify({
        _id: manifest.name,
        name: manifest.name,
        'dist-tags': { latest: manifest.version },
        versions: { [manifest.version]: version },
        time: { modified: '2026-01-01T00:00:00.000Z', [manifest.version]: '2026-01-01T00:00:00.000Z' },
      });
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }
    // Anything else, from the npm registry as it answers.
    const headers = { ...req.headers, host: new URL(UPSTREAM).host };
    delete headers.connection;
    delete headers.authorization;
    const upstream = request(`${UPSTREAM}${req.url}`, { method: req.method, headers }, (answer) => {
      const passed = { ...answer.headers };
      delete passed.connection;
      delete passed['transfer-encoding'];
      res.writeHead(answer.statusCode ?? 502, passed);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`seamguard's test registry could not reach ${UPSTREAM}: ${error.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    served,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
