/**
 * Errors and unknown routes in the envelope: the error handler (a thrown {@link EnvelopeError}, fastify's
 * own errors, failures) and the not-found handler, which tells 405 from 404 by the routes registered.
 * @module
 */
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendError, sendErrors, serverDiagnostic } from '../envelope.js';
import { API_PREFIX, EnvelopeError } from '../routes/common.js';
import { StoreUnavailableError } from '../store/unavailable.js';

/** Whether a request declares a body. */
const hasBody = (req: FastifyRequest) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** Seconds a client is told to wait (`Retry-After`) when the database is unavailable: about a restart's time. */
export const DATABASE_RETRY_AFTER = 5;

/** 503 for a request whose database connection failed: whether its write may have been applied decides the code. */
function sendUnavailable(req: FastifyRequest, reply: FastifyReply, error: StoreUnavailableError): FastifyReply {
  req.log.warn({ err: error.cause, outcome: error.outcome }, 'database unavailable');
  reply.header('retry-after', String(DATABASE_RETRY_AFTER));
  if (error.outcome === 'unknown') {
    return sendError(reply, 'server-write-outcome-unknown', `the database connection was lost after the write was sent (request id ${req.id}): the write may have been applied; read the ruleset's version before writing again`);
  }
  const written = req.method === 'GET' || req.method === 'HEAD' ? '' : '; nothing was written';
  return sendError(reply, 'server-unavailable', `the database is unavailable (request id ${req.id})${written}; try again in ${DATABASE_RETRY_AFTER} s`);
}

export const errorsPlugin = fp(async (app) => {
  // Every route's method and pattern, to tell 405 from 404 (routes registered after this plugin).
  const routes: { method: string; pattern: RegExp }[] = [];
  app.addHook('onRoute', (r) => {
    const pattern = new RegExp('^' + r.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+') + '/?$');
    for (const m of [r.method].flat()) routes.push({ method: m, pattern });
  });

  app.setErrorHandler((error: FastifyError | EnvelopeError, req: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof EnvelopeError) {
      reply.headers(error.headers);
      // Refused before its body was read: a body still to come is not read (the connection ends instead).
      if (error.status >= 401 && error.status <= 429 && hasBody(req)) reply.header('connection', 'close');
      return sendErrors(reply, error.status, error.diagnostics);
    }
    if (error instanceof StoreUnavailableError) return sendUnavailable(req, reply, error);
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
}, { name: 'rulekit-errors' });
