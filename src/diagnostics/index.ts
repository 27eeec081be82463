/** Diagnostics shared by every language of rulekit: the type, positions, rendering, suggestions. @module */
export * from './types.js';
export * from './source.js';
export * from './render.js';
export { suggest } from './suggest.js';
