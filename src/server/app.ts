/**
 * The reference server: the configuration API of service.md on fastify, every answer in the service's
 * envelope. `createServer` builds it (listening is the caller's: `app.listen`, or `app.inject` in tests).
 *
 * A request goes: route → (closing? 503) → credentials and ownership (onRequest, before the body is read)
 * → body bytes checked as UTF-8 JSON (body.ts) → rulekit's validator → the store's transaction.
 * @module
 */
import { randomUUID } from 'node:crypto';
import Fastify, { errorCodes, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { ListCatalog, type ListItems } from '../expression/index.js';
import { openStore, type Store, type StoreOptions } from './store/index.js';
import { authenticate, FailureLimiter, loadUsers, owns, type FailureLimit, type User, type UserConfig } from './auth.js';
import { parseBody, ParseMemo, readBodyBytes, ValidationMemo } from './body.js';
import { sendError, sendErrors, sendResult, serverDiagnostic } from './envelope.js';
import { RuleCache, toEnvelope } from '../ruleset/index.js';
import { EnvelopeError, SCOPES } from './routes/common.js';
import { rulesetRoutes } from './routes/rulesets.js';
import { logpushRoutes } from './routes/logpush.js';
import { PLAYGROUND_HEADERS, playgroundDirectory, playgroundFile, playgroundPaths } from '../playground-host/index.js';
import { VERSION } from '../version.js';

/** The path prefix of the API, as the official client uses it. */
export const API_PREFIX = '/client/v4';

/** Options of {@link createServer}. */
export interface ServerOptions extends StoreOptions {
  /** An open store to use (the server then does not close it); else one is opened from `databaseUrl` / `dataDir`. */
  store?: Store;
  /** The users, their keys and what they own. */
  users: readonly UserConfig[];
  /** Account-level lists expressions may name (`$name`); without them any list name is accepted. */
  lists?: ListItems;
  /** fastify's logger: `false` (default), `true` (pino JSON lines on stdout) or pino options. */
  logger?: boolean | Record<string, unknown>;
  /** Largest body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Failed authentications allowed per client and window (default 20 a minute). */
  failedAuthLimit?: FailureLimit;
  /** Trust `X-Forwarded-For` for the client address (behind a load balancer). */
  trustProxy?: boolean;
  /** When ruleset writes answer analysis findings in `messages`: `dry-run` (default, and `?analyze=true`), `always`, `never`. */
  analysis?: 'always' | 'dry-run' | 'never';
  /**
   * The playground page at `/` (GET): `true` (default) serves the built one (dist/playground) when there
   * is one, a string serves that directory, `false` none.
   */
  playground?: boolean | string;
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: User;
  }
  interface FastifyContextConfig {
    /** The route's bodies go through the server's {@link ParseMemo} (their parsed values are frozen). */
    memoBody?: boolean;
  }
}

/** Build the server (not yet listening). Closing it closes the store it opened. */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const users = loadUsers(options.users);
  const store = options.store ?? (await openStore(options));
  const limiter = new FailureLimiter(options.failedAuthLimit);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    return503OnClosing: false,
    // Idle keep-alive connections are closed at shutdown; requests in flight finish first.
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    // A request Node's HTTP parser refuses never reaches fastify: its answer is written here, in the envelope.
    clientErrorHandler(err: NodeJS.ErrnoException, socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) {
        const what = err.code === 'HPE_HEADER_OVERFLOW' ? 'the request headers are larger than 16 KiB' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'the request did not arrive in time' : `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`;
        const body = JSON.stringify(toEnvelope(null, [serverDiagnostic('server-bad-request', what)]));
        socket.write(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
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
  // Route schemas document the API (OpenAPI); bodies are checked by rulekit's validators, parameters by the routes.
  app.setValidatorCompiler(() => () => true);
  if (!options.store) app.addHook('onClose', async () => store.close());

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Only JSON bodies: anything else is 415. The bytes are checked as UTF-8 here, not decoded leniently.
  app.removeAllContentTypeParsers();
  const bodies = new ParseMemo();
  app.addContentTypeParser('application/json', (req: FastifyRequest, payload: NodeJS.ReadableStream | undefined, done: (err: Error | null, body?: unknown) => void) => {
    readBodyBytes(payload ?? req.raw, req.routeOptions.bodyLimit, Number(req.headers['content-length']), (failure, bytes) => {
      if (failure === 'too-large') return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      if (failure === 'length-mismatch') return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      if (failure) return done(Object.assign(failure, { statusCode: (failure as FastifyError).statusCode ?? 400 }));
      if (bytes!.length === 0) return done(null, undefined);
      const parsed = req.routeOptions.config.memoBody ? bodies.parse(bytes!) : parseBody(bytes!);
      if ('code' in parsed) return done(new EnvelopeError(400, [parsed]));
      done(null, parsed);
    });
  });

  // Every route's method and pattern, to tell 405 from 404.
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (r) => {
    const pattern = new RegExp('^' + r.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+') + '/?$');
    for (const m of [r.method].flat()) routes.push({ method: m, pattern });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'rulekit reference server', version: VERSION, description: 'The ruleset and Logpush configuration API of service.md; every answer is the envelope {result, success, errors, messages}.' },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          api_email: { type: 'apiKey', in: 'header', name: 'X-Auth-Email' },
          api_key: { type: 'apiKey', in: 'header', name: 'X-Auth-Key' },
        },
      },
      security: [{ api_email: [], api_key: [] }],
    },
  });

  app.setErrorHandler((error: FastifyError | EnvelopeError, req: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof EnvelopeError) {
      reply.headers(error.headers);
      return sendErrors(reply, error.status, error.diagnostics);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 'server-body-too-large', `the body is larger than ${app.initialConfig.bodyLimit} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 'server-unsupported-media-type', `bodies are JSON: send Content-Type: application/json (got ${JSON.stringify(req.headers['content-type'] ?? 'none')})`);
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 'server-missing-body', 'the body is empty; send a JSON object');
      default:
        break;
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendErrors(reply, status === 404 || status === 405 || status === 413 || status === 415 ? status : 400, [serverDiagnostic('server-invalid-parameter', error.message)]);
    }
    req.log.error({ err: error }, 'request failed');
    return sendError(reply, 'server-internal', `the server failed on this request (request id ${req.id}); nothing was written`);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path) && r.method !== 'HEAD').map((r) => r.method))];
    if (allowed.length) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, 'server-method-not-allowed', `${req.method} is not allowed on ${path}; it takes ${allowed.join(', ')}`);
    }
    return sendError(reply, 'server-not-found', `no route ${req.method} ${path}; the API lives under ${API_PREFIX} (see /openapi.json)`);
  });

  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    if (closing) return sendError(reply, 'server-unavailable', 'the server is shutting down');
    try {
      await store.ping();
    } catch (e) {
      return sendError(reply, 'server-unavailable', `the database does not answer: ${(e as Error).message}`);
    }
    return sendResult(reply, { status: 'ok', store: store.kind });
  });

  // The playground: its files at the root, outside the API prefix (no credentials: it is a static page).
  const playground = options.playground === false ? undefined : playgroundDirectory(typeof options.playground === 'string' ? options.playground : undefined);
  if (playground) {
    for (const path of playgroundPaths(playground)) {
      app.get(path, { schema: { hide: true } }, async (_req, reply) => {
        const file = playgroundFile(playground, path);
        if (!file) return sendError(reply, 'server-not-found', `no route GET ${path}; the playground was removed from ${playground}`);
        return reply.headers(PLAYGROUND_HEADERS).type(file.type).send(file.body);
      });
    }
  }

  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()));

  await app.register(async (api) => {
    api.addHook('onRequest', async (req, reply) => {
      reply.header('x-request-id', req.id);
      if (closing) throw EnvelopeError.of('server-unavailable', 'the server is shutting down; retry on another replica or after its restart');
      const client = req.ip;
      const wait = limiter.blockedFor(client);
      if (wait > 0) throw EnvelopeError.of('server-too-many-failed-logins', `too many requests with missing or wrong credentials from ${client}; try again in ${wait} s`, undefined, { 'retry-after': String(wait) });
      const email = req.headers['x-auth-email'];
      const key = req.headers['x-auth-key'];
      if (typeof email !== 'string' || typeof key !== 'string' || !email || !key) {
        limiter.fail(client);
        throw EnvelopeError.of('server-missing-credentials', 'send X-Auth-Email and X-Auth-Key with every request');
      }
      const user = authenticate(users, email, key);
      if (!user) {
        limiter.fail(client);
        throw EnvelopeError.of('server-bad-credentials', 'no user has this X-Auth-Email and X-Auth-Key');
      }
      req.user = user;
      const params = req.params as Record<string, string> | undefined;
      for (const s of SCOPES) {
        const id = params?.[s.param];
        if (id !== undefined && !owns(user, s.path, id)) {
          throw EnvelopeError.of('server-forbidden', `${user.email} has no access to ${s.noun} ${id} (or it does not exist)`);
        }
      }
    });
    const ctx = { store, lists: options.lists, catalog: options.lists ? ListCatalog.from(options.lists) : undefined, analysis: options.analysis, validations: new ValidationMemo(), rules: new RuleCache() };
    rulesetRoutes(api, ctx);
    logpushRoutes(api, ctx);
  }, { prefix: API_PREFIX });

  return app;
}
