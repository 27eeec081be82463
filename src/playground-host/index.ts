/**
 * Serving the built playground (dist/playground: index.html, one script, a stylesheet, the favicon) from Node:
 * `rulekit playground` on node:http, and the reference server at `/`. Only the files of that one
 * directory are served, read at each request (they are small, and a rebuild shows without a restart).
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Content types of the files the build writes. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Where the built playground is: `dir` when given, else beside the running bundle (dist/bundle/*.js →
 * dist/playground) or, running from the sources, dist/playground of the checkout. Undefined when it was
 * not built (`npm run build`).
 */
export function playgroundDirectory(dir?: string): string | undefined {
  const candidates = dir ? [dir] : [fileURLToPath(new URL('../playground/', import.meta.url)), fileURLToPath(new URL('../../dist/playground/', import.meta.url))];
  return candidates.find((d) => existsSync(join(d, 'index.html')) && existsSync(join(d, 'playground.js')));
}

/** The files of the playground by URL path (`/` is index.html). */
export function playgroundPaths(dir: string): string[] {
  return ['/', ...readdirSync(dir).filter((f) => Object.hasOwn(TYPES, extension(f)) && statSync(join(dir, f)).isFile()).map((f) => `/${f}`)];
}

function extension(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i);
}

/** The file at a URL path (query ignored), or undefined: only plain names of files in `dir`. */
export function playgroundFile(dir: string, url: string): { body: Buffer; type: string } | undefined {
  let path: string;
  try {
    path = decodeURIComponent(url.split(/[?#]/)[0]!);
  } catch {
    return undefined;
  }
  const name = path === '/' ? 'index.html' : path.slice(1);
  if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(name) || !Object.hasOwn(TYPES, extension(name))) return undefined;
  const file = join(dir, name);
  try {
    if (!statSync(file).isFile()) return undefined;
    return { body: readFileSync(file), type: TYPES[extension(name)]! };
  } catch {
    return undefined;
  }
}

/** Headers of every file answer: no sniffing, and revalidation (the files change with each build). */
export const PLAYGROUND_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' };

/** A node:http request listener serving the playground directory (404 and 405 in plain text). */
export function playgroundListener(dir: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end(`${req.method} is not allowed; the playground takes GET\n`);
      return;
    }
    const file = playgroundFile(dir, req.url ?? '/');
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`no file ${req.url}; the playground is at /\n`);
      return;
    }
    res.writeHead(200, { ...PLAYGROUND_HEADERS, 'content-type': file.type, 'content-length': String(file.body.length) });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  };
}

/** Options of {@link startPlayground}. */
export interface PlaygroundServeOptions {
  /** Port (default 8788; 0: any free port). */
  port?: number;
  /** Address (default 127.0.0.1). */
  host?: string;
  /** The built playground (default: {@link playgroundDirectory}). */
  dir?: string;
}

/** Serve the playground; resolves once it listens, with its URL. Rejects when it was not built or the port is taken. */
export async function startPlayground(options: PlaygroundServeOptions = {}): Promise<{ server: Server; url: string }> {
  const dir = playgroundDirectory(options.dir);
  if (!dir) throw new Error(`the playground is not built${options.dir ? ` in ${options.dir}` : ''}: run npm run build`);
  const server = createServer(playgroundListener(dir));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8788, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return { server, url: `http://${shown}:${port}/` };
}
