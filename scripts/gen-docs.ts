/** Writes docs/diagnostics.md and docs/fields.md from the catalogs. `npm run docs:gen`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { docFiles } from './doc-files.js';

mkdirSync('docs', { recursive: true });
for (const [name, text] of Object.entries(docFiles())) writeFileSync(`docs/${name}`, text);
console.log('wrote docs/diagnostics.md and docs/fields.md');
