import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { grammarFiles } from '../../scripts/grammar-files.js';

describe('grammar/', () => {
  it('is current with the parser (run `npm run grammar` after changing the grammar)', () => {
    for (const [name, text] of Object.entries(grammarFiles())) {
      expect(readFileSync(`grammar/${name}`, 'utf8'), `grammar/${name} is stale: run npm run grammar`).toBe(text);
    }
  });

  it('the listing names every rule and the railroad page loads nothing from the network', () => {
    const files = grammarFiles();
    for (const rule of ['expression', 'orExpr', 'xorExpr', 'andExpr', 'unary', 'primary', 'predicate', 'lhs', 'value', 'set']) {
      expect(files['grammar.md']).toMatch(new RegExp(`^${rule} = `, 'm'));
    }
    expect(files['railroad.html']).not.toMatch(/<(script|link)[^>]+(src|href)=/);
    expect(files['railroad.html']).toContain('serializedGrammar');
  });
});
