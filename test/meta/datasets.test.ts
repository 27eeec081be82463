import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATASETS_DIR, HAND_WRITTEN, TYPE_MAP, datasetFiles, readSources } from '../../scripts/dataset-files.js';
import { docFiles } from '../../scripts/doc-files.js';
import {
  ACCOUNT_DATASETS, DATASETS, DATASET_NAMES, DATASET_SCOPES, FILTERS_PAGE_LIMITS, FILTERS_PAGE_SOURCE, FILTERS_PAGE_TABLE,
  UNFILTERABLE_FIELDS, UNFILTERABLE_TYPES, ZONE_DATASETS, getDataset,
} from '../../src/logpush/datasets/index.js';
import { FILTER_LIMITS, OPERATORS } from '../../src/logpush/operators.js';

const ROOT = join(import.meta.dirname, '..', '..');
const sources = readSources();

describe('src/logpush/datasets/', () => {
  it('generated catalogs are current with src/logpush/datasets/source/ (run `npm run datasets` after changing a source)', () => {
    for (const [name, text] of Object.entries(datasetFiles())) {
      expect(readFileSync(join(DATASETS_DIR, name), 'utf8'), `src/logpush/datasets/${name} is stale: run npm run datasets`).toBe(text);
    }
  });
  it('holds no generated module of a dataset no longer listed', () => {
    const generated = Object.keys(datasetFiles());
    const present = readdirSync(DATASETS_DIR).filter((f) => f.endsWith('.ts') && !HAND_WRITTEN.includes(f));
    expect(present.sort()).toEqual(generated.sort());
  });
});

describe('source tables, catalogs, dataset index and docs agree', () => {
  it('every source table is listed by catalog.json under its scope, with its count and a revision', () => {
    for (const d of sources.datasets) {
      const raw = JSON.parse(readFileSync(join(DATASETS_DIR, 'source', d.scope, `${d.dataset}.json`), 'utf8')) as { count: number };
      expect(raw.count, `${d.scope}/${d.dataset}`).toBe(d.fields.length);
      expect(d.source.revision, `${d.scope}/${d.dataset}`).toMatch(/^[0-9a-f]{40}$/);
      expect(d.source.path).toBe(`src/content/docs/logs/logpush/logpush-job/datasets/${d.scope}/${d.dataset}.md`);
      for (const f of d.fields) expect(TYPE_MAP[f.type], `${d.dataset}.${f.name}: ${f.type}`).toBeDefined();
    }
  });
  it('the catalogs hold each source table with the same fields and types, in the same order', () => {
    for (const d of sources.datasets) {
      const ds = getDataset(d.dataset, d.scope)!;
      expect(ds, `${d.scope} ${d.dataset}`).toBeDefined();
      expect(ds.scope).toBe(d.scope);
      expect(ds.source.revision).toBe(d.source.revision);
      expect(ds.fields.map((f) => [f.name, f.type, f.deprecated])).toEqual(d.fields.map((f) => [f.name, TYPE_MAP[f.type], f.deprecated]));
    }
    expect(ZONE_DATASETS.size + ACCOUNT_DATASETS.size).toBe(sources.datasets.length);
  });
  it('the dataset index gives each name the scopes whose tables hold it', () => {
    const want = new Map<string, string[]>();
    for (const d of sources.datasets) want.set(d.dataset, [...(want.get(d.dataset) ?? []), d.scope]);
    expect(new Map([...DATASET_SCOPES].map(([k, v]) => [k, [...v]]))).toEqual(want);
    expect([...DATASET_NAMES].sort()).toEqual([...want.keys()].sort());
    expect([...DATASETS.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [name, scopes] of want) expect(DATASETS.get(name)!.scope).toBe(scopes[0]);
  });
  it('docs/datasets.md is current and lists every dataset with its scope, field count and revision', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'datasets.md'), 'utf8');
    expect(doc, 'docs/datasets.md is stale: run npm run docs:gen').toBe(docFiles()['datasets.md']);
    for (const d of sources.datasets) {
      expect(doc).toContain(`| ${d.scope} | ${d.fields.length} | ${d.source.revision.slice(0, 8)} |`);
      expect(doc).toContain(`## ${d.dataset} (${d.scope}, ${d.fields.length} fields)`);
      for (const f of d.fields) expect(doc).toContain(`| \`${f.name}\` | ${f.type} |`);
    }
  });
  it('README.md and docs/logpush.md state the catalog\'s counts', () => {
    const fields = sources.datasets.reduce((n, d) => n + d.fields.length, 0);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const logpush = readFileSync(join(ROOT, 'docs', 'logpush.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`${ZONE_DATASETS.size} zone-scoped and ${ACCOUNT_DATASETS.size} account-scoped, ${fields} fields`);
    expect(logpush).toContain(`${ZONE_DATASETS.size} zone and ${ACCOUNT_DATASETS.size} account datasets, ${fields} fields`);
  });
  it('the limitations note is data: its types and firewall_events fields as filters.json holds them', () => {
    expect([...UNFILTERABLE_TYPES].sort()).toEqual(sources.filters.limitations.types.map((t) => TYPE_MAP[t]).sort());
    expect(Object.fromEntries([...UNFILTERABLE_FIELDS].map(([k, v]) => [k, [...v]]))).toEqual(sources.filters.limitations.fields);
  });
});

describe('the operator table is the Filters page as read', () => {
  const COLUMN = { String: 'string', Int: 'int', Bool: 'bool', Array: 'array', Object: 'object' } as const;
  it('has the page rows, in the page order, with the same type columns', () => {
    expect(OPERATORS.map((o) => o.name)).toEqual(FILTERS_PAGE_TABLE.map((r) => r.operator));
    for (const row of FILTERS_PAGE_TABLE) {
      const op = OPERATORS.find((o) => o.name === row.operator)!;
      expect(op.meaning, row.operator).toBe(row.name);
      for (const [col, kind] of Object.entries(COLUMN)) {
        expect((op.kinds as readonly string[]).includes(kind), `${row.operator} × ${col}`).toBe(row.types[col as keyof typeof COLUMN]);
      }
    }
  });
  it('has the page limits', () => {
    expect({ operators: FILTER_LIMITS.maxOperators, bytes: FILTER_LIMITS.maxBytes }).toEqual(FILTERS_PAGE_LIMITS);
  });
  it('cites the page path and the revision read, beside the table', () => {
    const text = readFileSync(join(ROOT, 'src', 'logpush', 'operators.ts'), 'utf8');
    const comment = text.slice(0, text.indexOf('export const OPERATORS'));
    expect(comment).toContain(FILTERS_PAGE_SOURCE.path);
    expect(comment).toContain(FILTERS_PAGE_SOURCE.revision);
    expect(comment).toContain(sources.filters.limitationsSource.revision);
  });
});
