/**
 * queryLogs' counts over files, held to the matcher on generated filters and lines: NDJSON read in member
 * mode, NDJSON the typed read refuses (a line that is not an object, a key twice) read as whole lines, and
 * Parquet whose columns have the catalog's type or another one (typed columns, or each value as JSON).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFilter, getDataset } from '../../src/logpush/index.js';
import { queryLogs } from '../../src/simulation/sql-query.js';
import { hasLoneSurrogate, sqlIdentifier, sqlString } from '../../src/sql/index.js';
import { FIELDS, lineArb, nodeArb } from '../helpers/logfilter-arbitraries.js';
import { duckdbEngine, type Engine } from '../helpers/sql-engines.js';

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 60 : 30));
const dataset = getDataset('http_requests')!;
const fields = [...new Set(Object.values(FIELDS).flat())];
/** DuckDB's type of each catalog type's column. */
const CATALOG: Record<string, string> = { string: 'VARCHAR', int: 'BIGINT', int_or_string: 'BIGINT', bool: 'BOOLEAN', array_string: 'VARCHAR[]', array_int: 'BIGINT[]' };

function lone(v: unknown): boolean {
  if (typeof v === 'string') return hasLoneSurrogate(v);
  if (Array.isArray(v)) return v.some(lone);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => hasLoneSurrogate(k) || lone(x));
  return false;
}

const dir = mkdtempSync(join(tmpdir(), 'rulekit-query-logs-'));
let engine: Engine;
beforeAll(async () => {
  engine = await duckdbEngine();
});
afterAll(() => {
  engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

let file = 0;
const filterArb = nodeArb.map((where) => JSON.stringify({ where })).filter((text) => !!compileLogFilter(text, { dataset: 'http_requests' }).matcher && !lone(JSON.parse(text)));
const linesArb = fc.array(lineArb, { minLength: 1, maxLength: 12 }).map((ls) => ls.filter((l) => !lone(l)));

describe('queryLogs over files counts what the matcher keeps', () => {
  it('NDJSON, in member mode, and as whole lines where the typed read refuses the file', async () => {
    // A key twice holds one value twice: engines keep the first, JSON.parse the last.
    const refused = ['[1,2]', '"text"', '7', '{"ClientCountry":"us","ClientCountry":"us"}'];
    let seen = 0;
    await fc.assert(fc.asyncProperty(filterArb, linesArb, fc.option(fc.constantFrom(...refused), { nil: undefined }), async (text, lines, odd) => {
      const path = join(dir, `lines-${file++}.ndjson`);
      const texts = lines.map((l) => JSON.stringify(l));
      if (odd !== undefined) texts.splice(texts.length >> 1, 0, odd);
      writeFileSync(path, texts.join('\n') + '\n');
      const matcher = compileLogFilter(text, { dataset: 'http_requests' }).matcher!;
      const parsed = texts.map((t) => JSON.parse(t) as unknown).filter((v): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v));
      const expected = parsed.filter((l) => matcher(l)).length;
      const r = await queryLogs(text, [path], { countOnly: true });
      expect(r.ok).toBe(true);
      expect(r.total).toBe(texts.length);
      expect(r.matched).toBe(expected);
      seen += lines.length;
    }), { numRuns: RUNS });
    expect(seen).toBeGreaterThan(50);
  });

  it('Parquet with columns of the catalog\'s type or another, as the matcher reads each row as JSON', async () => {
    const columnTypes = fc.array(fc.constantFrom('catalog', 'VARCHAR', 'DOUBLE', 'absent'), { minLength: fields.length, maxLength: fields.length });
    await fc.assert(fc.asyncProperty(filterArb, linesArb.filter((ls) => ls.length > 0), columnTypes, async (text, lines, kinds) => {
      const ndjson = join(dir, `rows-${file}.ndjson`);
      const parquet = join(dir, `rows-${file++}.parquet`);
      writeFileSync(ndjson, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const kept = fields.map((f, i) => [f, kinds[i]!] as const).filter(([, k]) => k !== 'absent');
      const cast = (f: string, k: string) => `TRY_CAST(${sqlIdentifier(f)} AS ${k === 'catalog' ? CATALOG[dataset.byName.get(f)!.type]! : k}) AS ${sqlIdentifier(f)}`;
      const select = kept.length ? kept.map(([f, k]) => cast(f, k)).join(', ') : '1 AS other';
      await engine.rows(`COPY (SELECT ${select} FROM read_json(${sqlString(ndjson)}, format = 'newline_delimited', records = true, columns = {${fields.map((f) => `${sqlString(f)}: 'JSON'`).join(', ')}})) TO ${sqlString(parquet)} (FORMAT parquet)`);
      // The rows as the Parquet holds them, each as a JSON object: what the matcher is asked about.
      const rows = (await engine.rows(`SELECT CAST(to_json(p) AS VARCHAR) AS j FROM read_parquet(${sqlString(parquet)}) AS p`)).map((r) => JSON.parse(String(r['j'])) as Record<string, unknown>);
      const matcher = compileLogFilter(text, { dataset: 'http_requests' }).matcher!;
      const r = await queryLogs(text, [parquet], { countOnly: true });
      expect(r.ok).toBe(true);
      expect([r.matched, r.total]).toEqual([rows.filter((l) => matcher(l)).length, rows.length]);
    }), { numRuns: RUNS });
  });
});
