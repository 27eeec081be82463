/**
 * `rulekit diff --against TABLE --engine clickhouse --clickhouse-url URL`: the traffic counts of a diff over
 * a ClickHouse server's table of flows, through `@clickhouse/client` and its HTTP wire format, against the
 * server in the test (test/helpers/clickhouse-http.ts: each query run on chdb, the real engine). The
 * figures equal the in-process counts over the same packets as NDJSON, example for example (rows of the
 * table numbered as the lines were); a refused login, a missing table and the usage mistakes exit as
 * `simulate --clickhouse-url` does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowColumnType, flowFields, sqlIdentifier } from '../../src/sql/index.js';
import { runCliAsync, ROOT } from '../helpers/cli.js';
import { startFakeClickHouse, type FakeClickHouse } from '../helpers/clickhouse-http.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-clickhouse-'));
const AUTH = { user: 'rulekit', password: "p@ss:w'rd" };
const id = (s: string) => sqlIdentifier(s, 'clickhouse');
const FIELDS = flowFields(undefined, { aliases: true });

let server: FakeClickHouse;
let withCredentials: string;

/** The CLI in a child process (the server runs in this one), with no ClickHouse credentials from this environment. */
const cli = (args: string[], env: Record<string, string> = {}) => runCliAsync(args, { env: { CLICKHOUSE_USER: '', CLICKHOUSE_PASSWORD: '', ...env } });

const base = ['diff', 'examples/ruleset.before.json', 'examples/ruleset.json', '--lists', 'examples/lists.json'];

beforeAll(async () => {
  server = await startFakeClickHouse(AUTH);
  const u = new URL(server.url);
  u.username = encodeURIComponent(AUTH.user);
  u.password = encodeURIComponent(AUTH.password);
  withCredentials = u.toString();
  // The flow table a collector would fill: a column per field (aliases included) and a timestamp no rule reads.
  await server.exec(`CREATE TABLE flows (${FIELDS.map((f) => `${id(f.name)} ${flowColumnType(f, 'clickhouse')}`).join(', ')}, ts DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY tuple()`);
  const lines = readFileSync(join(ROOT, 'examples', 'flows.ndjson'), 'utf8').split('\n').filter((l) => l.trim());
  await server.exec(`INSERT INTO flows FORMAT JSONEachRow ${lines.join('\n')}`);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('rulekit diff --against a ClickHouse server table', () => {
  it('counts the table as the in-process diff counts the same packets: figures and examples', async () => {
    const here = await cli([...base, '--against', 'examples/flows.ndjson', '--format', 'json']);
    expect(here.code).toBe(0);
    const there = await cli([...base, '--against', 'flows', '--engine', 'clickhouse', '--clickhouse-url', withCredentials, '--format', 'json']);
    expect([there.code, there.err]).toEqual([0, '']);
    const counts = (out: string) => JSON.parse(out).reports.map((r: { counts: { packets: number; changed: number; pairs: { count: number; examples: { index: number; fields: unknown }[] }[] } }) => ({
      packets: r.counts.packets,
      changed: r.counts.changed,
      pairs: r.counts.pairs.map((p) => ({ count: p.count, examples: p.examples.map((e) => [e.index, e.fields]) })),
    }));
    const want = counts(here.out);
    expect(want[0].changed).toBeGreaterThan(0);
    expect(counts(there.out)).toEqual(want);
    // The server ran the diff's query (and the read-back of examples), not an in-process count.
    expect(server.queries.some((q) => q.includes('`flows`') && /GROUP BY/i.test(q))).toBe(true);
    // The text names examples by the table's row.
    const text = await cli([...base, '--against', 'default.flows', '--engine', 'clickhouse', '--clickhouse-url', server.url], { CLICKHOUSE_USER: AUTH.user, CLICKHOUSE_PASSWORD: AUTH.password });
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/traffic: 108 of 600 packets change \(108 change verdict\)/);
    expect(text.out).toMatch(/e\.g\. row 1 \{"ip\.dst":"192\.0\.2\.10","ip\.src":"203\.0\.113\.77","udp\.dstport":5061\}/);
    // docs/diff.md shows this output for its command.
    const page = readFileSync(join(ROOT, 'docs', 'diff.md'), 'utf8');
    const block = /```\n([\s\S]*?)```/.exec(page.slice(page.indexOf('- A ClickHouse server\'s table:')))![1]!.split('\n').map((l) => l.replace(/^  /, ''));
    expect(block.slice(0, 2).join(' ')).toMatch(/^\$ rulekit diff examples\/ruleset\.before\.json examples\/ruleset\.json --lists examples\/lists\.json \\ +--against flows --engine clickhouse --clickhouse-url http:\/\/127\.0\.0\.1:8123$/);
    expect(text.out).toBe(block.slice(2).join('\n'));
  });

  it('a refused login, a missing table and usage mistakes: exit 2 with the reason', async () => {
    const refused = await cli([...base, '--against', 'flows', '--engine', 'clickhouse', '--clickhouse-url', server.url], { CLICKHOUSE_USER: AUTH.user, CLICKHOUSE_PASSWORD: 'wrong' });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/flows: the ClickHouse server at 127\.0\.0\.1:\d+ could not read it: .*Authentication failed/);
    const missing = await cli([...base, '--against', 'no_such_table', '--engine', 'clickhouse', '--clickhouse-url', withCredentials]);
    expect([missing.code, /no_such_table/.test(missing.err)]).toEqual([2, true]);
    const noEngine = await cli([...base, '--against', 'flows', '--clickhouse-url', withCredentials]);
    expect([noEngine.code, noEngine.err.trim()]).toEqual([2, 'rulekit: --clickhouse-url goes with --engine clickhouse']);
    expect((await cli([...base, '--against', 'flows', '--engine', 'duckdb', '--clickhouse-url', withCredentials])).code).toBe(2);
    const badUrl = await cli([...base, '--against', 'flows', '--engine', 'clickhouse', '--clickhouse-url', 'ftp://x']);
    expect([badUrl.code, badUrl.err]).toEqual([2, expect.stringMatching(/--clickhouse-url takes an http:\/\/ or https:\/\/ URL/)]);
    const badTable = await cli([...base, '--against', 'a.b.c', '--engine', 'clickhouse', '--clickhouse-url', withCredentials]);
    expect([badTable.code, badTable.err]).toEqual([2, expect.stringMatching(/give a ClickHouse table as NAME or DATABASE\.NAME/)]);
    // Filters count log lines of files: refused with the way that works.
    writeFileSync(join(dir, 'old.json'), JSON.stringify({ where: { key: 'ClientCountry', operator: 'eq', value: 'us' } }));
    writeFileSync(join(dir, 'new.json'), JSON.stringify({ where: { key: 'ClientCountry', operator: 'eq', value: 'de' } }));
    const filters = await cli(['diff', join(dir, 'old.json'), join(dir, 'new.json'), '--against', 'logs', '--engine', 'clickhouse', '--clickhouse-url', withCredentials]);
    expect([filters.code, filters.err]).toEqual([2, expect.stringMatching(/--clickhouse-url counts the flows of a server's table for rulesets/)]);
  });
});
