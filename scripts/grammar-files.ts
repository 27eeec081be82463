/**
 * The files of grammar/: the EBNF listing and a self-contained railroad page (Chevrotain's diagram
 * scripts and CSS inlined from node_modules, so it opens offline). Used by `npm run grammar` and by the
 * test that keeps grammar/ current.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { grammarListing, railroadHtml } from '../src/expression/grammar-doc.js';

/** Contents of grammar/grammar.md and grammar/railroad.html. */
export function grammarFiles(): Record<string, string> {
  // chevrotain's package exports do not include diagrams/: read them from the installed package folder.
  const base = join(import.meta.dirname, '..', 'node_modules', 'chevrotain', 'diagrams');
  const html = railroadHtml()
    .replace(/<link rel='stylesheet' href='https:\/\/unpkg\.com\/chevrotain@[^/]+\/diagrams\/([^']+)'>/g, (_m, file: string) => `<style>\n${readFileSync(join(base, file), 'utf8')}\n</style>`)
    .replace(/<script src='https:\/\/unpkg\.com\/chevrotain@[^/]+\/diagrams\/([^']+)'><\/script>/g, (_m, file: string) => `<script>\n${readFileSync(join(base, file), 'utf8')}\n</script>`);
  return { 'grammar.md': grammarListing(), 'railroad.html': html };
}
