/**
 * The server's fastify plugins, each one job; `createServer` (app.ts) composes them.
 * @module
 */
export { authPlugin, type AuthOptions } from './auth.js';
export { bodyPlugin } from './body.js';
export { errorsPlugin } from './errors.js';
export { openApiPlugin } from './openapi.js';
export { playgroundPlugin, type PlaygroundOptions } from './playground.js';
export { storePlugin, type StorePluginOptions } from './store.js';
