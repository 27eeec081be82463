/**
 * The playground: its files at the root, outside the API prefix (no credentials: it is a static page).
 * @module
 */
import type { FastifyPluginAsync } from 'fastify';
import { PLAYGROUND_HEADERS, playgroundDirectory, playgroundFile, playgroundPaths } from '../../playground-host/index.js';
import { sendError } from '../envelope.js';

export interface PlaygroundOptions {
  /** `true` serves the built playground (dist/playground) when there is one, a string serves that directory, `false` none. */
  playground?: boolean | string;
}

export const playgroundPlugin: FastifyPluginAsync<PlaygroundOptions> = async (app, options) => {
  const playground = options.playground === false ? undefined : playgroundDirectory(typeof options.playground === 'string' ? options.playground : undefined);
  if (!playground) return;
  for (const path of playgroundPaths(playground)) {
    app.get(path, { schema: { hide: true } }, async (_req, reply) => {
      const file = playgroundFile(playground, path);
      if (!file) return sendError(reply, 'server-not-found', `no route GET ${path}; the playground was removed from ${playground}`);
      return reply.headers(PLAYGROUND_HEADERS).type(file.type).send(file.body);
    });
  }
};
