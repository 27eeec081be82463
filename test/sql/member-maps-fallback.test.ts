/**
 * Where DuckDB refuses NDJSON read as one map a line, `simulate --engine duckdb` reads the files again as
 * whole lines and gives the in-process summary: the engine's runner here fails every query that reads maps,
 * as a file read_json could not read would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runSimulation, simulateOnEngine } from '../../src/simulation/index.js';

const refusedQueries: string[] = [];
vi.mock('../../src/simulation/sql-runner.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/simulation/sql-runner.js')>();
  return {
    ...original,
    openEngine: async (engine: Parameters<typeof original.openEngine>[0]) => {
      const run = await original.openEngine(engine);
      return {
        ...run,
        rows: async (sql: string) => {
          if (sql.includes('MAP(VARCHAR, JSON)')) {
            refusedQueries.push(sql);
            throw new Error('Invalid Input Error: refused by the test');
          }
          return run.rows(sql);
        },
        close: () => run.close(),
      };
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), 'rulekit-member-maps-fallback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('NDJSON flows DuckDB refuses as maps', () => {
  it('are read as whole lines, with the in-process summary', async () => {
    const file = join(dir, 'flows.ndjson');
    writeFileSync(file, ['{"tcp.dstport":23,"ip.src":"10.0.0.1"}', 'not json', '{"tcp.dstport":"x"}', '', '{"udp.dstport":53,"ip.src":null}', '{"tcp.dstport":23}'].join('\n') + '\n');
    const rulesetText = JSON.stringify({ rules: [{ action: 'block', expression: 'tcp.dstport == 23 and not ip.src in {10.0.0.0/8}' }, { action: 'block', expression: 'udp.dstport == 53' }] });
    const want = await runSimulation(rulesetText, file, { threads: 0 });
    const got = await simulateOnEngine(rulesetText, [file], { engine: 'duckdb' });
    expect(refusedQueries.length).toBeGreaterThan(0);
    expect(got.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(got.summary).toEqual(want.summary);
    const invalid = (ds: readonly { code: string; data?: Record<string, unknown> }[]) => ds.filter((d) => d.code === 'simulation-invalid-value').map((d) => `${String(d.data?.['field'])} ${String(d.data?.['count'] ?? 1)}`).sort();
    expect(invalid(got.diagnostics)).toEqual(invalid(want.diagnostics));
  });
});
