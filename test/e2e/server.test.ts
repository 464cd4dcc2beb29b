import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mimeType, serveDist, type StaticServer } from './server';
import { findChrome, isOutsideRequest } from './browser';

let distDir: string;
let server: StaticServer;

beforeAll(async () => {
  distDir = await mkdtemp(join(tmpdir(), 'netmortem-fake-dist-'));
  await mkdir(join(distDir, 'assets'));
  await mkdir(join(distDir, 'scenarios'));
  await writeFile(join(distDir, 'index.html'), '<!doctype html><title>fake</title>');
  await writeFile(join(distDir, 'assets', 'main.js'), 'export {};');
  await writeFile(join(distDir, 'scenarios', 'demo.yaml'), 'id: demo\n');
  server = await serveDist({ distDir, subPath: '/a/b/' });
});

afterAll(async () => {
  await server.close();
  await rm(distDir, { recursive: true, force: true });
});

describe('static server for the built app', () => {
  it('serves a copy of dist under the sub-path on 127.0.0.1', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a\/b\/$/);
    const index = await fetch(server.url);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<title>fake</title>');

    const script = await fetch(new URL('assets/main.js', server.url));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const scenario = await fetch(new URL('scenarios/demo.yaml', server.url));
    expect(scenario.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(await scenario.text()).toBe('id: demo\n');
  });

  it('answers 404 outside the sub-path and records the miss', async () => {
    const absolute = await fetch(new URL('/assets/main.js', server.url));
    expect(absolute.status).toBe(404);
    const escape = await fetch(new URL('/a/b/%2e%2e/%2e%2e/etc/passwd', server.url));
    expect(escape.status).toBe(404);
    expect(server.misses).toContain('/assets/main.js');
  });

  it('maps file extensions to MIME types', () => {
    expect(mimeType('x.mjs')).toBe('text/javascript; charset=utf-8');
    expect(mimeType('x.css')).toBe('text/css; charset=utf-8');
    expect(mimeType('x.json')).toBe('application/json; charset=utf-8');
    expect(mimeType('x.svg')).toBe('image/svg+xml');
    expect(mimeType('x.png')).toBe('image/png');
    expect(mimeType('x.wasm')).toBe('application/wasm');
    expect(mimeType('x.unknown')).toBe('application/octet-stream');
  });

  it('fails with advice when dist is missing', async () => {
    await expect(serveDist({ distDir: join(distDir, 'nope') })).rejects.toThrow(/npm run build/);
  });
});

describe('browser harness', () => {
  it('treats only 127.0.0.1 and in-page schemes as local', () => {
    expect(isOutsideRequest('http://127.0.0.1:4000/a/b/index.html')).toBe(false);
    expect(isOutsideRequest('data:image/png;base64,AAAA')).toBe(false);
    expect(isOutsideRequest('blob:http://127.0.0.1:4000/1234')).toBe(false);
    expect(isOutsideRequest('http://localhost:4000/')).toBe(true);
    expect(isOutsideRequest('https://fonts.googleapis.com/css')).toBe(true);
  });

  it('explains how to get a browser when CHROME_PATH points nowhere', () => {
    expect(() => findChrome({ CHROME_PATH: '/nonexistent/chrome' })).toThrow(/CHROME_PATH.*\n[\s\S]*apt-get install -y chromium/);
  });
});
