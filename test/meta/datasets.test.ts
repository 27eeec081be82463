import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS_DIR, datasetFiles } from '../../scripts/dataset-files.js';

describe('src/logpush/datasets/', () => {
  it('generated catalogs are current with src/logpush/datasets/source/ (run `npm run datasets` after changing a source)', () => {
    for (const [name, text] of Object.entries(datasetFiles())) {
      expect(readFileSync(join(DATASETS_DIR, name), 'utf8'), `src/logpush/datasets/${name} is stale: run npm run datasets`).toBe(text);
    }
  });
});
