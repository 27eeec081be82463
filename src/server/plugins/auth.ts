/**
 * Credentials and ownership, checked when a request arrives (before its body is read): a client over its
 * limit of failed attempts is refused (429); then either `Authorization: Bearer <token>` must be an API
 * token that names the account or zone the path names (and has `edit` on it for anything but GET/HEAD),
 * or `X-Auth-Email` and `X-Auth-Key` must name a user who owns it. Also answers 503 while the server
 * shuts down.
 *
 * Both kinds of credentials in one request are refused (400), not ranked: the service answers a mix of
 * them "Invalid request headers" (code 6003), and Terraform's provider refuses the mix itself, so a
 * client that sends both has a configuration mistake worth naming (an environment variable it forgot).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authenticate, FailureLimiter, owns, type FailureLimit, type User } from '../auth.js';
import { authenticateToken, READ_METHODS, tokenPermission, type Token } from '../tokens.js';
import { EnvelopeError, SCOPES } from '../routes/common.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user of the key, or of the token when it is in a user's list. */
    user?: User;
    /** The API token the request was made with. */
    token?: Token;
  }
}

export interface AuthOptions {
  users: ReadonlyMap<string, User>;
  tokens?: ReadonlyMap<string, Token>;
  failedAuthLimit?: FailureLimit;
  /** Whether the server is shutting down. */
  closing: () => boolean;
}

/** `Bearer <token68>`, the scheme case-insensitive (RFC 7235); the token is checked by tokens.ts. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export const authPlugin = fp<AuthOptions>(async (app, { users, tokens = new Map(), failedAuthLimit, closing }) => {
  const limiter = new FailureLimiter(failedAuthLimit);
  app.decorateRequest('user', undefined);
  app.decorateRequest('token', undefined);
  // Fastify's callback form: the check is synchronous, and an async hook would cost every request a
  // promise and a turn of the microtask queue (the server bench's PUT profile).
  app.addHook('onRequest', (req, reply, done) => {
    try {
      check(req, reply);
    } catch (e) {
      return done(e as Error);
    }
    done();
  });

  /** Throws the EnvelopeError that refuses the request, else sets its user and token. */
  function check(req: FastifyRequest, reply: FastifyReply): void {
    reply.header('x-request-id', req.id);
    if (closing()) throw EnvelopeError.of('server-unavailable', 'the server is shutting down; retry on another replica or after its restart');
    const client = req.ip;
    const wait = limiter.blockedFor(client);
    if (wait > 0) throw EnvelopeError.of('server-too-many-failed-logins', `too many requests with missing or wrong credentials from ${client}; try again in ${wait} s`, undefined, { 'retry-after': String(wait) });
    // Every refusal of the credentials counts as a failure, whatever was wrong with them.
    const refuse = (error: EnvelopeError): never => {
      limiter.fail(client);
      throw error;
    };
    const authorization = req.headers.authorization;
    const email = req.headers['x-auth-email'];
    const key = req.headers['x-auth-key'];
    const params = req.params as Record<string, string> | undefined;

    if (authorization !== undefined) {
      if (email !== undefined || key !== undefined) {
        refuse(EnvelopeError.of('server-conflicting-credentials', 'send either Authorization: Bearer <token> or X-Auth-Email and X-Auth-Key, not both (an API token needs no email)'));
      }
      const m = BEARER.exec(authorization);
      if (!m) refuse(EnvelopeError.of('server-bad-authorization', 'Authorization must be "Bearer <token>", the API token after one space'));
      const token = authenticateToken(tokens, m![1]!);
      if (!token) return refuse(EnvelopeError.of('server-bad-credentials', 'no API token is this one (Authorization: Bearer); it may have been revoked or mistyped'));
      req.token = token;
      req.user = token.owner === undefined ? undefined : users.get(token.owner.toLowerCase());
      for (const s of SCOPES) {
        const id = params?.[s.param];
        if (id === undefined) continue;
        const permission = tokenPermission(token, s.path, id);
        if (!permission) throw EnvelopeError.of('server-forbidden', `API token ${token.label} has no access to ${s.noun} ${id} (or it does not exist)`);
        if (permission === 'read' && !READ_METHODS.has(req.method)) {
          throw EnvelopeError.of('server-token-read-only', `API token ${token.label} may only read ${s.noun} ${id}: ${req.method} needs "edit" permission on it (rulekit token create --${s.noun} ${id}:edit)`);
        }
      }
      return;
    }

    if (typeof email !== 'string' || typeof key !== 'string' || !email || !key) {
      refuse(EnvelopeError.of('server-missing-credentials', 'send Authorization: Bearer <API token>, or X-Auth-Email and X-Auth-Key, with every request'));
    }
    const user = authenticate(users, email as string, key as string);
    if (!user) return refuse(EnvelopeError.of('server-bad-credentials', 'no user has this X-Auth-Email and X-Auth-Key'));
    req.user = user;
    for (const s of SCOPES) {
      const id = params?.[s.param];
      if (id !== undefined && !owns(user, s.path, id)) {
        throw EnvelopeError.of('server-forbidden', `${user.email} has no access to ${s.noun} ${id} (or it does not exist)`);
      }
    }
  }
}, { name: 'rulekit-auth' });
