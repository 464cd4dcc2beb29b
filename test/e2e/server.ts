import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.yaml': 'application/yaml; charset=utf-8',
  '.yml': 'application/yaml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export function mimeType(path: string): string {
  return MIME_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export interface ServeOptions {
  /** Built app folder; defaults to `dist/` at the repository root. */
  distDir?: string;
  /** URL path the copy is served under; must start and end with `/`. */
  subPath?: string;
  /** Extra response headers on every file, e.g. a Content-Security-Policy. */
  headers?: Record<string, string>;
}

export interface StaticServer {
  /** Absolute URL of the app, ending in `/`. */
  url: string;
  /** URL paths that were requested but not found (a broken asset reference shows up here). */
  misses: string[];
  close(): Promise<void>;
}

export const DEFAULT_SUB_PATH = '/some/wiki/path/';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Copies the built app into a temp folder under a nested sub-path and serves it from there on
 * 127.0.0.1, so the tests prove the build works as a plain static folder with relative URLs.
 */
export async function serveDist(options: ServeOptions = {}): Promise<StaticServer> {
  const distDir = resolve(options.distDir ?? join(repoRoot, 'dist'));
  const subPath = options.subPath ?? DEFAULT_SUB_PATH;
  if (!subPath.startsWith('/') || !subPath.endsWith('/')) {
    throw new Error(`subPath must start and end with "/", got ${JSON.stringify(subPath)}`);
  }
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`No built app at ${distDir} (index.html missing). Run \`npm run build\` first; \`npm test\` builds before running vitest.`);
  }

  const tempRoot = await mkdtemp(join(tmpdir(), 'netmortem-e2e-'));
  const appRoot = join(tempRoot, ...subPath.split('/').filter(Boolean));
  await cp(distDir, appRoot, { recursive: true });

  const misses: string[] = [];
  const server = createServer((req, res) => {
    handle(req, res, tempRoot, subPath).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(String(err));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, root: string, prefix: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (pathname === '/favicon.ico') {
      // Browsers ask the site root for this on their own; the host site owns it, not the app.
      res.writeHead(204);
      res.end();
      return;
    }
    // Only the sub-path exists, so an asset referenced by an absolute `/assets/...` URL fails loudly.
    const file = pathname.startsWith(prefix) ? await resolveFile(root, pathname) : null;
    if (file === null) {
      misses.push(pathname);
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`not found: ${pathname}`);
      return;
    }
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': mimeType(file),
      'content-length': body.length,
      'cache-control': 'no-store',
      ...options.headers,
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${subPath}`,
    misses,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      await rm(tempRoot, { recursive: true, force: true });
    },
  };
}

/** Maps a URL path to a file inside `root`, serving `index.html` for folders; null when absent or outside. */
async function resolveFile(root: string, pathname: string): Promise<string | null> {
  const candidate = resolve(root, '.' + pathname);
  if (candidate !== root && !candidate.startsWith(root + sep)) return null;
  const info = await stat(candidate).catch(() => null);
  if (info === null) return null;
  if (info.isFile()) return candidate;
  if (!info.isDirectory()) return null;
  const index = join(candidate, 'index.html');
  const indexInfo = await stat(index).catch(() => null);
  return indexInfo?.isFile() ? index : null;
}
