/**
 * `ipaddr.js` behind a getter, so that it is evaluated when an address is first parsed or printed this
 * way, not when the library is imported. In the sources a plain import; the shipped bundle
 * (scripts/bundle.mjs) replaces this module with one whose getter `require()`s the package, which
 * esbuild evaluates on the first call (as src/expression/deferred.ts does for re2js and Chevrotain).
 * @module
 */
import ipaddr from 'ipaddr.js';

/** The `ipaddr.js` module. */
export function ipaddrLib(): typeof ipaddr {
  return ipaddr;
}
