/**
 * Credentials and ownership, checked when a request arrives (before its body is read): a client over its
 * limit of failed attempts is refused (429), then `X-Auth-Email` and `X-Auth-Key` must name a user, who
 * must own the account or zone the path names. Also answers 503 while the server shuts down.
 * @module
 */
import fp from 'fastify-plugin';
import { authenticate, FailureLimiter, owns, type FailureLimit, type User } from '../auth.js';
import { EnvelopeError, SCOPES } from '../routes/common.js';

declare module 'fastify' {
  interface FastifyRequest {
    user?: User;
  }
}

export interface AuthOptions {
  users: ReadonlyMap<string, User>;
  failedAuthLimit?: FailureLimit;
  /** Whether the server is shutting down. */
  closing: () => boolean;
}

export const authPlugin = fp<AuthOptions>(async (app, { users, failedAuthLimit, closing }) => {
  const limiter = new FailureLimiter(failedAuthLimit);
  app.decorateRequest('user', undefined);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (closing()) throw EnvelopeError.of('server-unavailable', 'the server is shutting down; retry on another replica or after its restart');
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
}, { name: 'rulekit-auth' });
