/** Diagnostics shared by every language of rulekit. @module */
export * from './types.js';
export * from './source.js';
export * from './render.js';
export { DIAGNOSTIC_CODES } from './codes.js';
