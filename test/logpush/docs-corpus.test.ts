/**
 * The public docs as a corpus: the Filters page's examples (test/logpush/corpus/filters-page.json, with
 * the page path and revision), and every field of every dataset page as the source tables hold it
 * (src/logpush/datasets/source/, each with its page and revision), each with the verdict the current
 * operator table and filtering-limitations note give. The verdicts per documented type are written out
 * here, not derived from src/logpush/operators.ts, so a wrong row or type mapping fails. Every accepted
 * filter also goes through the SQL back end, which reads the same catalogs.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkLogFilter, validateLogpushJob, FILTERS_PAGE_SOURCE, FILTERS_PAGE_TABLE } from '../../src/logpush/index.js';
import { readSources } from '../../scripts/dataset-files.js';
import { logFilterToSql } from '../../src/sql/index.js';

interface Example { from: string; dataset: string; filter: string; verdict: 'accepted' | 'rejected'; codes: string[] }
const corpus = JSON.parse(readFileSync(join(import.meta.dirname, 'corpus', 'filters-page.json'), 'utf8')) as {
  source: { path: string; revision: string };
  examples: Example[];
  jobs: { from: string; source?: { repo: string; path: string; revision: string }; scope: 'zone' | 'account'; body: unknown; codes: string[] }[];
  oldSpellings: { cases: { operator: string; fix: string }[] };
};
const at = `${corpus.source.path} @${corpus.source.revision.slice(0, 8)}`;

describe(`the Filters page's examples (${at})`, () => {
  it('come from the revision the operator table was read at, and hold every example of its table', () => {
    expect(corpus.source).toMatchObject({ path: FILTERS_PAGE_SOURCE.path, revision: FILTERS_PAGE_SOURCE.revision });
    for (const row of FILTERS_PAGE_TABLE) {
      expect(corpus.examples.some((e) => e.filter === `{"where":${row.example}}`), row.operator).toBe(true);
    }
  });
  for (const e of corpus.examples) {
    it(`${e.from}: ${e.verdict}${e.codes.length ? ` with ${e.codes.join(', ')}` : ''}`, () => {
      const r = checkLogFilter(e.filter, { dataset: e.dataset });
      expect(r.diagnostics.map((d) => d.code)).toEqual(e.codes);
      expect(r.filter !== undefined).toBe(e.verdict === 'accepted');
    });
  }
  for (const j of corpus.jobs) {
    const from = j.source ? `${j.from} (${j.source.repo} ${j.source.path} @${j.source.revision.slice(0, 8)})` : j.from;
    it(`${from}: ${j.codes.join(', ') || 'no diagnostics'}`, () => {
      expect(validateLogpushJob(j.body, { scope: j.scope }).map((d) => d.code)).toEqual(j.codes);
    });
  }
});

describe('old spellings seen in public examples: an error whose fix writes the current spelling', () => {
  for (const { operator, fix } of corpus.oldSpellings.cases) {
    it(`${operator} → ${fix}`, () => {
      const text = JSON.stringify({ where: { key: 'EdgeResponseStatus', operator, value: operator.toLowerCase().includes('in') ? [500] : 500 } });
      const r = checkLogFilter(text, { dataset: 'http_requests' });
      const d = r.diagnostics.find((x) => x.code === 'filter-misspelt-operator')!;
      expect(d).toMatchObject({ severity: 'error', pointer: '/where/operator', data: { operator, meant: fix } });
      expect(d.message).toContain(`"${fix}"`);
      const edit = d.fix!.edits[0]!;
      const fixed = text.slice(0, edit.range.start) + edit.newText + text.slice(edit.range.end);
      expect(JSON.parse(fixed).where.operator).toBe(fix);
      expect(r.filter).toBeUndefined();
      // The fixed filter is accepted, unless the operator does not fit an int field (startsWith, contains).
      const after = checkLogFilter(fixed, { dataset: 'http_requests' });
      expect(after.diagnostics.some((x) => x.code === 'filter-misspelt-operator')).toBe(false);
    });
  }
});

/**
 * The verdict of a filter on a field of each documented type, with an operator the Filters page gives
 * that type (and, for arrays, the `in` it does not): written from the page and its limitations note.
 */
const BY_TYPE: Record<string, { operator: string; value: unknown; codes: string[] }[]> = {
  string: [{ operator: 'eq', value: 'x', codes: [] }, { operator: 'lt', value: 1, codes: ['filter-operator-type'] }],
  int: [{ operator: 'geq', value: 1, codes: [] }, { operator: 'contains', value: 1, codes: ['filter-operator-type'] }],
  bool: [{ operator: 'eq', value: true, codes: [] }, { operator: 'in', value: [true], codes: ['filter-operator-type'] }],
  'int or string': [{ operator: 'geq', value: 1, codes: [] }, { operator: 'startsWith', value: '2026-', codes: [] }],
  'array[string]': [{ operator: 'contains', value: 'x', codes: [] }, { operator: 'in', value: ['x'], codes: ['filter-operator-type'] }],
  'array[int]': [{ operator: 'contains', value: 1, codes: [] }, { operator: '!in', value: [1], codes: ['filter-operator-type'] }],
  float: [{ operator: 'eq', value: 1, codes: ['filter-float-field'] }],
  object: [{ operator: 'eq', value: 'x', codes: ['filter-object-field'] }],
  'array[object]': [{ operator: 'contains', value: 'x', codes: ['filter-object-field'] }],
};
/** The note's firewall_events fields (filtering-limitations.mdx @2678ac4c), in both scopes. */
const NOTE_FIELDS = { firewall_events: ['Action', 'Description', 'Kind', 'MatchIndex', 'Metadata', 'OriginatorRayID', 'RuleID', 'Source'] } as Record<string, string[]>;

describe('every field of every dataset page, with the verdict of its documented type', () => {
  const { datasets } = readSources();
  for (const d of datasets) {
    it(`${d.scope} ${d.dataset} (${d.fields.length} fields; ${d.source.path} @${d.source.revision.slice(0, 8)})`, () => {
      for (const f of d.fields) {
        const cases = BY_TYPE[f.type];
        expect(cases, `${d.dataset}.${f.name}: type ${f.type} has no verdict here`).toBeDefined();
        for (const c of cases!) {
          const r = checkLogFilter(JSON.stringify({ where: { key: f.name, operator: c.operator, value: c.value } }), { dataset: d.dataset, scope: d.scope });
          const errors = r.diagnostics.filter((x) => x.severity === 'error').map((x) => x.code);
          const noted = NOTE_FIELDS[d.dataset]?.includes(f.name) === true;
          // A noted field is refused by the note before the operator is looked at.
          const want = noted ? ['filter-unfilterable-field', ...c.codes.filter((x) => x === 'filter-operator-type')] : c.codes;
          expect(errors, `${d.scope} ${d.dataset}.${f.name} (${f.type}) ${c.operator}`).toEqual(noted && f.type === 'object' ? ['filter-unfilterable-field', 'filter-object-field'] : want);
          expect(r.diagnostics.some((x) => x.code === 'filter-deprecated-field'), `${d.dataset}.${f.name} deprecated`).toBe(f.deprecated);
          if (r.filter) expect(logFilterToSql(r.filter).sql, `${d.dataset}.${f.name} ${c.operator} as SQL`).toBeTypeOf('string');
        }
      }
    });
  }
});
