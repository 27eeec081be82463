/**
 * Writes the Logpush dataset catalogs (`src/logpush/datasets/*.ts`, the index included) from their sources
 * in `src/logpush/datasets/source/` (see scripts/dataset-files.ts). `npm run datasets`; a test keeps the
 * generated files current.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS_DIR, datasetFiles } from './dataset-files.js';

const files = datasetFiles();
for (const [name, text] of Object.entries(files)) writeFileSync(join(DATASETS_DIR, name), text);
console.log(`wrote ${Object.keys(files).map((f) => `src/logpush/datasets/${f}`).join(', ')}`);
