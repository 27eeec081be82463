/**
 * rulekit — a toolkit for the two small languages of an edge network's ruleset and log push
 * configuration API: network rule expressions and Logpush filters. Parse, check, evaluate, simulate.
 *
 * Everything exported here runs in Node 20 and in a browser, and never throws on bad input: problems
 * come back as {@link Diagnostic}s `{code, severity, message, range or pointer, fix?}`.
 * @module rulekit
 */
export * from './diagnostics/index.js';
export * from './expression/index.js';
export * from './net/index.js';
export * from './ruleset/index.js';
