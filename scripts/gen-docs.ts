/** Writes the generated reference pages of docs/ and the config's JSON Schema from the catalogs. `npm run docs:gen`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { docFiles } from './doc-files.js';
import { CONFIG_SCHEMA_PATH, configSchemaText, VSCODE_CONFIG_SCHEMA_PATH } from './config-schema.js';

mkdirSync('docs', { recursive: true });
for (const [name, text] of Object.entries(docFiles())) writeFileSync(`docs/${name}`, text);
console.log(`wrote ${Object.keys(docFiles()).map((n) => `docs/${n}`).join(', ')}`);
for (const path of [CONFIG_SCHEMA_PATH, VSCODE_CONFIG_SCHEMA_PATH]) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, configSchemaText());
  console.log(`wrote ${path}`);
}
