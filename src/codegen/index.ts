/**
 * What every code generator shares: escaping values into JavaScript source. Browser-safe.
 * @module
 */
export { jsLiteral, jsString } from './js-literal.js';
