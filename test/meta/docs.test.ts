import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { docFiles } from '../../scripts/doc-files.js';

describe('docs/', () => {
  it('generated reference pages are current (run `npm run docs:gen` after changing a catalog)', () => {
    for (const [name, text] of Object.entries(docFiles())) expect(readFileSync(`docs/${name}`, 'utf8'), `docs/${name} is stale`).toBe(text);
  });
});
