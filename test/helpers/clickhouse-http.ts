/**
 * A ClickHouse server for tests, in the test's process: Node's HTTP server speaking the part of
 * ClickHouse's HTTP interface that `@clickhouse/client` uses for queries — `POST /?query_id=…` with the
 * query as the body, Basic authentication, the result in the format the query names, errors as
 * `Code: N. DB::Exception: …` with status 500 and `X-ClickHouse-Exception-Code`, `GET /ping` — and
 * answering every query by running it on chdb (a Session: tables persist between queries), the real
 * engine. No CI machine can reach a ClickHouse server; this keeps the SQL, the client's wire format and
 * the reading of its results real, and leaves out only what a server process adds (its network stack
 * beyond HTTP/1.1, users and grants, clusters, settings profiles).
 *
 * A URL parameter it does not know is refused, as an unknown setting is by a server: if the client
 * started sending something that changes a query's meaning, the tests would say so.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Session } from 'chdb';

export interface FakeClickHouse {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Run SQL on the engine directly (setting up tables). */
  exec(sql: string): Promise<string>;
  /** Queries received over HTTP, as run. */
  queries: string[];
  /** Responses sent gzip-compressed (the client asked for it). */
  compressed: number;
  /** Queries the engine refused (answered with an error, never compressed). */
  refused: number;
  close(): Promise<void>;
}

/** URL parameters the client sends that have no effect on a query's result here. */
const IGNORED = new Set(['query_id', 'enable_http_compression', 'wait_end_of_query']);

export async function startFakeClickHouse(auth: { user: string; password: string }): Promise<FakeClickHouse> {
  const session = new Session();
  // One query at a time, in arrival order, as one connection of a server would.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const next = chain.then(f, f);
    chain = next.catch(() => undefined);
    return next;
  };
  const queries: string[] = [];

  const fail = (res: ServerResponse, status: number, code: number, message: string) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(code) });
    res.end(`Code: ${code}. DB::Exception: ${message}. (rulekit test server)\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' });
      return res.end('Ok.\n');
    }
    const header = req.headers.authorization ?? '';
    const [user, password] = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8').split(/:(.*)/s) : [req.headers['x-clickhouse-user'], req.headers['x-clickhouse-key']];
    if (user !== auth.user || (password ?? '') !== auth.password) return fail(res, 516, 516, `${String(user)}: Authentication failed: password is incorrect, or there is no user with such name`);
    for (const key of url.searchParams.keys()) {
      if (IGNORED.has(key)) continue;
      if (key === 'database' && url.searchParams.get(key) === 'default') continue;
      return fail(res, 400, 115, `Unknown setting ${key} (the test server does not apply it)`);
    }
    if (req.headers['content-encoding']) return fail(res, 400, 1, `request compression ${req.headers['content-encoding']} is not handled by the test server`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const query = (url.searchParams.get('query') ?? '') + Buffer.concat(chunks).toString('utf8');
    queries.push(query);
    let body: Uint8Array;
    try {
      body = await serial(async () => (await session.queryAsync(query, { format: 'TabSeparated' })).bytes());
    } catch (e) {
      const message = (e as Error).message;
      const code = Number(/Code: (\d+)/.exec(message)?.[1] ?? 1);
      fake.refused++;
      return fail(res, code === 60 ? 404 : 500, code, message.replace(/^.*?DB::Exception: /s, '').split('\n')[0]!);
    }
    const format = /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(query)?.[1] ?? 'TabSeparated';
    const headers: Record<string, string> = {
      'Content-Type': format.startsWith('JSON') ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8',
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Query-Id': url.searchParams.get('query_id') ?? '',
      'X-ClickHouse-Summary': JSON.stringify({ read_rows: '0', read_bytes: '0', written_rows: '0', written_bytes: '0', total_rows_to_read: '0', result_rows: '0', result_bytes: String(body.length) }),
    };
    // What a server does when the client asks for compressed responses.
    if (url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      headers['Content-Encoding'] = 'gzip';
      body = gzipSync(body);
      fake.compressed++;
    }
    res.writeHead(200, headers);
    res.end(body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => fail(res, 500, 1, e.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeClickHouse = {
    url: `http://127.0.0.1:${port}`,
    exec: (sql) => serial(async () => (await session.queryAsync(sql, { format: 'TabSeparated' })).text()),
    queries,
    compressed: 0,
    refused: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await chain;
      session.close();
    },
  };
  return fake;
}
