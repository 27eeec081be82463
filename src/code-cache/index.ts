/**
 * Running the build's CommonJS scripts with V8's code cache, for the CLI's launcher and the library's
 * Node entry points (./run-script.ts). The library's loader (./library.ts) is an entry of the build of
 * its own, not exported here.
 * @module
 */
export { cacheDir, flagsKey, runCachedScript, type CachedScript, type ScriptRun } from './run-script.js';
