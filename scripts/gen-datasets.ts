/**
 * Writes the Logpush dataset catalogs (`src/logpush/datasets/*.ts`, the index included) from their sources
 * in `src/logpush/datasets/source/` (see scripts/dataset-files.ts) and removes generated modules of
 * datasets no longer listed. `npm run datasets`; a test keeps the generated files current.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS_DIR, HAND_WRITTEN, datasetFiles } from './dataset-files.js';

const files = datasetFiles();
for (const [name, text] of Object.entries(files)) writeFileSync(join(DATASETS_DIR, name), text);
const stale = readdirSync(DATASETS_DIR).filter((f) => f.endsWith('.ts') && !HAND_WRITTEN.includes(f) && !(f in files));
for (const f of stale) rmSync(join(DATASETS_DIR, f));
console.log(`wrote ${Object.keys(files).length} files in src/logpush/datasets/${stale.length ? `; removed ${stale.join(', ')}` : ''}`);
