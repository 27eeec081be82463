/** Writes grammar/grammar.md and grammar/railroad.html from the parser. `npm run grammar`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { grammarFiles } from './grammar-files.js';

mkdirSync('grammar', { recursive: true });
for (const [name, text] of Object.entries(grammarFiles())) writeFileSync(`grammar/${name}`, text);
console.log('wrote grammar/grammar.md and grammar/railroad.html');
