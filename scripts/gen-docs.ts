/** Writes the generated reference pages of docs/ and the config's JSON Schema from the catalogs. `npm run docs:gen`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { docFiles } from './doc-files.js';
import { CONFIG_SCHEMA_PATH, configSchemaText } from './config-schema.js';

mkdirSync('docs', { recursive: true });
for (const [name, text] of Object.entries(docFiles())) writeFileSync(`docs/${name}`, text);
console.log(`wrote ${Object.keys(docFiles()).map((n) => `docs/${n}`).join(', ')}`);
mkdirSync('schemas', { recursive: true });
writeFileSync(CONFIG_SCHEMA_PATH, configSchemaText());
console.log(`wrote ${CONFIG_SCHEMA_PATH}`);
