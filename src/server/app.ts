/**
 * The reference server: the configuration API (docs/server.md) on fastify, every answer in the service's
 * envelope. `createServer` builds it (listening is the caller's: `app.listen`, or `app.inject` in tests)
 * from the plugins of plugins/, each one job.
 *
 * A request goes: route → (closing? 503) → credentials and ownership (onRequest, before the body is read)
 * → body bytes checked as UTF-8 JSON (body.ts) → rulekit's validator → the store's transaction.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { ServerCode } from './codes.js';
import Fastify, { type FastifyInstance } from 'fastify';
import { ListCatalog, type ListItems } from '../expression/index.js';
import type { Store, StoreOptions } from './store/index.js';
import { loadUsers, type FailureLimit, type UsersEntry } from './auth.js';
import { loadTokens } from './tokens.js';
import { ValidationMemo } from './body.js';
import { OffThreadChecks } from './off-thread.js';
import { AnswerBytes, sendError, serverDiagnostic } from './envelope.js';
import { RuleCache, toEnvelope } from '../ruleset/index.js';
import { API_PREFIX, EnvelopeError } from './routes/common.js';
import { rulesetRoutes } from './routes/rulesets.js';
import { logpushRoutes } from './routes/logpush.js';
import { entryPointRoutes } from './routes/entry-points.js';
import { ruleRoutes } from './routes/rules.js';
import { versionRoutes } from './routes/versions.js';
import { listRoutes } from './routes/lists.js';
import { AccountLists } from './account-lists.js';
import { logpushExtraRoutes } from './routes/logpush-extra.js';
import { logpushTransformerRoutes } from './routes/logpush-transformers.js';
import { authPlugin, bodyPlugin, errorsPlugin, openApiPlugin, playgroundPlugin, storePlugin } from './plugins/index.js';

export { API_PREFIX };

/** Default of {@link ServerOptions.requestTimeout}. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Options of {@link createServer}. */
export interface ServerOptions extends StoreOptions {
  /** An open store to use (the server then does not close it); else one is opened from `databaseUrl` / `dataDir`. */
  store?: Store;
  /** The users, their keys and what they own; API tokens, of their own or in a user's `tokens`. */
  users: readonly UsersEntry[];
  /**
   * Lists every account has beside its stored ones (Lists API), which expressions may name (`$name`); a
   * stored list of the same name takes the place of one of these. Zone rulesets are checked against
   * these alone (without them, any list name is accepted there).
   */
  lists?: ListItems;
  /** fastify's logger: `false` (default), `true` (pino JSON lines on stdout) or pino options. */
  logger?: boolean | Record<string, unknown>;
  /** Largest body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Failed authentications allowed per client and window (default 20 a minute). */
  failedAuthLimit?: FailureLimit;
  /**
   * Most time a request may take to arrive, headers and body, in ms (default 30 000): a client that
   * trickles its body in is answered 408 and its connection closed. 0: no limit.
   */
  requestTimeout?: number;
  /**
   * Validate large bodies (128 KiB and more) on a thread of their own, so that one does not hold every
   * other request (default true; it needs the built library beside the server, else they are validated
   * on the server's thread). An {@link OffThreadChecks} given is used (and closed with the server).
   */
  validationThread?: boolean | OffThreadChecks;
  /** Trust `X-Forwarded-For` for the client address (behind a load balancer). */
  trustProxy?: boolean;
  /** When ruleset writes answer analysis findings in `messages`: `dry-run` (default, and `?analyze=true`), `always`, `never`. */
  analysis?: 'always' | 'dry-run' | 'never';
  /**
   * The playground page at `/` (GET): `true` (default) serves the built one (dist/playground) when there
   * is one, a string serves that directory, `false` none.
   */
  playground?: boolean | string;
  /**
   * A directory standing for the Logpush buckets: ownership challenge files are written under it
   * (`<dir>/<scheme>/<bucket>/<path>/`), and `file://` destinations inside it are taken. None: challenge
   * tokens are issued but written nowhere (answered in a header), `file://` is refused.
   */
  logpushDir?: string;
}

/** Write an error answer in the envelope straight to a socket (a request fastify is not answering). */
function writeRaw(socket: Duplex, status: string, code: ServerCode, message: string): void {
  const body = JSON.stringify(toEnvelope(null, [serverDiagnostic(code, message)]));
  socket.write(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

const writeTimedOut = (socket: Duplex) => writeRaw(socket, '408 Request Timeout', 'server-request-timeout', 'the request (headers and body) did not arrive in time');

/** Build the server (not yet listening). Closing it closes the store it opened. */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const users = loadUsers(options.users);
  const tokens = loadTokens(options.users, users);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: false,
    requestTimeout: options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // A request without Host reaches the hooks below (answered in the envelope), not Node's bare 400; the
    // request timeout is checked every second rather than every 30.
    http: { requireHostHeader: false, connectionsCheckingInterval: 1000 },
    // `…/rulesets/` is `…/rulesets`, not a ruleset with an empty id.
    routerOptions: { ignoreTrailingSlash: true },
    // Idle keep-alive connections are closed at shutdown; requests in flight finish first.
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    // A request Node's HTTP parser refuses never reaches fastify: its answer is written here, in the envelope.
    clientErrorHandler(err: NodeJS.ErrnoException, socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) {
        if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') writeTimedOut(socket);
        else {
          const what = err.code === 'HPE_HEADER_OVERFLOW' ? 'the request headers are larger than 16 KiB' : `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`;
          writeRaw(socket, '400 Bad Request', 'server-bad-request', what);
        }
      }
      socket.destroy(err);
    },
    // A URL the router cannot read (bad percent-encoding, a path segment over its 100 characters) is
    // answered before any route: in the envelope too, not fastify's own body (nor its 414).
    frameworkErrors: (error, _req, reply) => {
      const what = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is longer than 100 characters' : 'the path is not valid percent-encoded UTF-8';
      void sendError(reply, 'server-invalid-parameter', `${what}; ids are at most 64 characters`);
    },
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const isClosing = () => closing;
  // An answer sent once closing began ends its connection: a keep-alive client would otherwise hold the
  // socket open, and the process with it, until the keep-alive timeout (72 s).
  // Hooks every request runs take fastify's callback form: an async hook costs each request a promise and
  // a turn of the microtask queue (the server bench's PUT profile).
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  await app.register(errorsPlugin);
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (requestTimeout > 0) {
    // Node's requestTimeout stops counting once the headers are in: a body still arriving when the time is
    // up is answered here, on the socket, which is then closed (the handler never runs).
    app.addHook('onRequest', (req, _reply, done) => {
      if (!(Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined)) return done();
      const timer = setTimeout(() => {
        const socket = req.raw.socket;
        if (!req.raw.complete && socket.writable) {
          writeTimedOut(socket);
          socket.destroy();
        }
      }, requestTimeout);
      timer.unref();
      req.raw.once('end', () => clearTimeout(timer));
      req.raw.once('close', () => clearTimeout(timer));
      done();
    });
  }
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.headers.host === undefined && req.raw.httpVersionMinor >= 1) return done(EnvelopeError.of('server-bad-request', 'an HTTP/1.1 request must send Host'));
    // Node reads `Transfer-Encoding: gzip, chunked` as plain chunked: the body would be taken as JSON
    // while it is gzip. Codings other than chunked are refused (RFC 9112 §6.1: 501) and the connection closed.
    const te = req.headers['transfer-encoding'];
    if (te !== undefined && te.trim().toLowerCase() !== 'chunked') {
      return done(EnvelopeError.of('server-unsupported-transfer-encoding', `Transfer-Encoding ${JSON.stringify(te.slice(0, 60))} is not supported: send the body as it is (Content-Length) or chunked`, undefined, { connection: 'close' }));
    }
    done();
  });
  await app.register(bodyPlugin);
  await app.register(storePlugin, { store: options.store, databaseUrl: options.databaseUrl, dataDir: options.dataDir, closing: isClosing });
  await app.register(openApiPlugin);
  await app.register(playgroundPlugin, { playground: options.playground });
  // Large bodies are validated on a thread of their own (off-thread.ts), started on the first one.
  const offThread = options.validationThread instanceof OffThreadChecks ? options.validationThread : new OffThreadChecks(options.validationThread === false ? null : undefined);
  app.addHook('onClose', async () => offThread.close());
  await app.register(async (api) => {
    await api.register(authPlugin, { users, tokens, failedAuthLimit: options.failedAuthLimit, closing: isClosing });
    const ctx = { store: app.store, lists: options.lists, catalog: options.lists ? ListCatalog.from(options.lists) : undefined, accountLists: new AccountLists(app.store.lists, options.lists), analysis: options.analysis, validations: new ValidationMemo(), rules: new RuleCache(), answers: new AnswerBytes(), logpushDir: options.logpushDir, offThread };
    rulesetRoutes(api, ctx);
    entryPointRoutes(api, ctx);
    ruleRoutes(api, ctx);
    versionRoutes(api, ctx);
    logpushRoutes(api, ctx);
    listRoutes(api, ctx);
    logpushExtraRoutes(api, ctx);
    logpushTransformerRoutes(api, ctx);
  }, { prefix: API_PREFIX });

  return app;
}
