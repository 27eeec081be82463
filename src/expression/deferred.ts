/**
 * The two large dependencies of expressions behind getters, so that only the expressions that need them
 * load them: re2js (the regular expressions of `matches` and `wildcard`) and the Chevrotain grammar
 * (text the fast parser gives up on: errors, recovery, their messages).
 *
 * In the sources these are plain imports. The shipped bundle (scripts/bundle.mjs) replaces this module
 * with one whose getters `require()` the two: esbuild turns such a require into a module evaluated on the
 * getter's first call, so importing the library neither runs re2js's and Chevrotain's module code nor
 * builds the token copies and the grammar. Both getters stay synchronous, as the API around them is.
 * @module
 */
import { RE2JS } from 're2js';
import * as grammar from './parser.js';

/** The RE2JS class. */
export function regexEngine(): typeof RE2JS {
  return RE2JS;
}

/** The Chevrotain grammar module (`parser.ts`). */
export function grammarParser(): typeof grammar {
  return grammar;
}
