/**
 * Body parsing: only JSON bodies (anything else is 415), their bytes checked as UTF-8 and parsed by
 * body.ts (positions for syntax errors, a depth limit); routes marked `memoBody` go through the server's
 * {@link ParseMemo}, whose parsed values are frozen.
 * @module
 */
import fp from 'fastify-plugin';
import { errorCodes, type FastifyError, type FastifyRequest } from 'fastify';
import { parseBody, ParseMemo, readBodyBytes } from '../body.js';
import { EnvelopeError } from '../routes/common.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's bodies go through the server's {@link ParseMemo} (their parsed values are frozen). */
    memoBody?: boolean;
  }
}

export const bodyPlugin = fp(async (app) => {
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
}, { name: 'rulekit-body' });
