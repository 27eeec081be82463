/**
 * The store: the one given, or one opened from the options (closed with the server); `app.store`, and
 * `/healthz`, which asks the database.
 * @module
 */
import fp from 'fastify-plugin';
import { openStore, type Store, type StoreOptions } from '../store/index.js';
import { sendError, sendResult } from '../envelope.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's store. */
    store: Store;
  }
}

export interface StorePluginOptions extends StoreOptions {
  /** An open store to use (the server then does not close it). */
  store?: Store;
  /** Whether the server is shutting down. */
  closing: () => boolean;
}

export const storePlugin = fp<StorePluginOptions>(async (app, options) => {
  const store = options.store ?? (await openStore(options));
  if (!options.store) app.addHook('onClose', async () => store.close());
  app.decorate('store', store);

  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    if (options.closing()) return sendError(reply, 'server-unavailable', 'the server is shutting down');
    try {
      await store.ping();
    } catch (e) {
      // /healthz answers without credentials: the database's address and the driver's words go to the
      // log, not to whoever asks.
      app.log.warn({ err: e }, 'health check: the database does not answer');
      return sendError(reply, 'server-unavailable', 'the database does not answer');
    }
    return sendResult(reply, { status: 'ok', store: store.kind });
  });
}, { name: 'rulekit-store' });
