/** Writes the generated reference pages of docs/ from the catalogs. `npm run docs:gen`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { docFiles } from './doc-files.js';

mkdirSync('docs', { recursive: true });
for (const [name, text] of Object.entries(docFiles())) writeFileSync(`docs/${name}`, text);
console.log(`wrote ${Object.keys(docFiles()).map((n) => `docs/${n}`).join(', ')}`);
