/**
 * Worker threads of the Node entry points (the server, the LSP).
 * @module
 */
export { RequestThread } from './request-thread.js';
