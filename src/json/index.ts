/** JSON text with positions: parsing into values with ranges and JSON pointers, for diagnostics in request bodies. @module */
export * from './document.js';
