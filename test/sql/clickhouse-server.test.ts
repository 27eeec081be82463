/**
 * `--clickhouse-url`: rulekit's ClickHouse server path end to end — `@clickhouse/client`, its HTTP wire
 * format, the SQL rulekit sends and the reading of the results — against a server in the test
 * (test/helpers/clickhouse-http.ts) that answers each query by running it on chdb, the real engine, over
 * tables it holds. On generated rulesets and flow rows the server's summary equals the in-process
 * simulator's over the same packets as NDJSON; `rulekit query` counts what the compiled matcher keeps, in
 * JSON mode (a `line` column) and column mode (a typed column per field); credentials come from the URL
 * or the environment, and a refused login is an exit code 2 naming the reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFilter } from '../../src/logpush/index.js';
import { runSimulation, simulateOnEngine } from '../../src/simulation/index.js';
import { flowColumnType, flowFields, sqlIdentifier, sqlString } from '../../src/sql/index.js';
import { LISTS } from '../expression/arbitraries.js';
import { startFakeClickHouse, type FakeClickHouse } from '../helpers/clickhouse-http.js';
import { lineArb, validRulesArb } from '../helpers/sql-rulesets.js';
import { runCliAsync } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-clickhouse-server-'));
const AUTH = { user: 'rulekit', password: "p@ss:w'rd" };
const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 30 : 15));
const id = (s: string) => sqlIdentifier(s, 'clickhouse');

let server: FakeClickHouse;
/** The server's URL with the test user's credentials in it. */
let withCredentials: string;

/** The CLI in a child process (the server runs in this one, so never spawnSync). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runCliAsync(args, { cwd: dir, env: { CLICKHOUSE_USER: '', CLICKHOUSE_PASSWORD: '', ...env } }).then((r) => ({ status: r.code, stdout: r.out, stderr: r.err }));
}

/** The flow table: a column per field as the simulator reads packets (aliases included), and a timestamp. */
const FIELDS = flowFields(undefined, { aliases: true });
const FLOWS_TABLE = `CREATE TABLE flows (${FIELDS.map((f) => `${id(f.name)} ${flowColumnType(f, 'clickhouse')}`).join(', ')}, ts DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY tuple()`;

/** A packet line as a row of the table: each value of its column's type kept (unchecked), others NULL. */
function row(line: string): Record<string, unknown> {
  const p = JSON.parse(line) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const v = p[f.name];
    if (f.type === 'Int' ? Number.isSafeInteger(v) : f.type === 'Bool' ? typeof v === 'boolean' : typeof v === 'string') out[f.name] = v;
  }
  return out;
}

async function fill(table: string, lines: readonly string[]): Promise<void> {
  await server.exec(`TRUNCATE TABLE ${table}`);
  if (lines.length) await server.exec(`INSERT INTO ${table} FORMAT JSONEachRow ${lines.map((l) => JSON.stringify(row(l))).join('\n')}`);
}

beforeAll(async () => {
  server = await startFakeClickHouse(AUTH);
  const u = new URL(server.url);
  u.username = encodeURIComponent(AUTH.user);
  u.password = encodeURIComponent(AUTH.password);
  withCredentials = u.toString();
  await server.exec(FLOWS_TABLE);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});


describe('simulate on a ClickHouse server', () => {
  it('gives the in-process summary over a table of the same packets', async () => {
    let run = 0;
    let compared = 0;
    await fc.assert(fc.asyncProperty(validRulesArb, fc.array(lineArb, { minLength: 1, maxLength: 12 }), async (rules, lines) => {
      const rulesetText = JSON.stringify({ rules });
      const ndjson = join(dir, `f${run++}.ndjson`);
      writeFileSync(ndjson, lines.join('\n') + '\n');
      const want = await runSimulation(rulesetText, ndjson, { lists: LISTS, threads: 0 });
      await fill('flows', lines);
      const got = await simulateOnEngine(rulesetText, ['flows'], { engine: 'clickhouse', lists: LISTS, clickhouseUrl: withCredentials });
      if (!got.ok) {
        expect(got.diagnostics.map((d) => d.code)).toContain('sql-no-exact-form');
        return;
      }
      compared++;
      // A typed column cannot hold a value of another type (the simulator keeps it in an example, warning): those members aside, equal.
      const typed = { ...want.summary, rules: want.summary.rules.map((r) => ({ ...r, examples: r.examples.map((e) => ({ ...e, packet: row(JSON.stringify(e.packet)) })) })) };
      expect(got.summary).toEqual(typed);
    }), { numRuns: RUNS });
    expect(compared).toBeGreaterThan(RUNS / 2);
  });

  it('reads address columns of ClickHouse\'s IPv4/IPv6 types as their text', async () => {
    await server.exec('CREATE TABLE typed_flows (`ip.src` Nullable(IPv4), `ip.dst` IPv6, `tcp.dstport` UInt16) ENGINE = MergeTree ORDER BY tuple()');
    await server.exec(`INSERT INTO typed_flows VALUES ('10.1.2.3', '::ffff:10.0.0.1', 23), (NULL, '2001:db8::1', 22), ('192.0.2.1', '::1', 23)`);
    const ruleset = JSON.stringify({ rules: [
      { action: 'block', expression: 'ip.src in {10.0.0.0/8} and tcp.dstport == 23' },
      { action: 'block', expression: 'ip.dst in {10.0.0.0/8} or ip.dst == 2001:db8::1' },
      { action: 'block', expression: 'not ip.src in {192.0.2.0/24}' },
    ] });
    const got = await simulateOnEngine(ruleset, ['default.typed_flows'], { engine: 'clickhouse', clickhouseUrl: withCredentials });
    expect(got.diagnostics).toEqual([]);
    // ::ffff:10.0.0.1 is an IPv6 address, not in 10.0.0.0/8; a missing ip.src is not in a set, so `not in` holds.
    expect(got.summary.rules.map((r) => [r.matched, r.examples.map((e) => e.index)])).toEqual([[1, [0]], [1, [1]], [0, []]]);
    expect(got.summary.verdicts).toEqual({ allow: 1, block: 2 });
  });

  it('rulekit simulate --clickhouse-url prints the in-process table; credentials from the environment', async () => {
    const ruleset = join(dir, 'rs.json');
    writeFileSync(ruleset, JSON.stringify({ rules: [
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {10.0.0.0/8}', description: 'trusted' },
      { action: 'block', expression: 'tcp.dstport in {23 2323} or udp.dstport == 1900', description: 'telnet, ssdp' },
    ] }));
    const lines = ['{"ip.src":"10.1.2.3","tcp.dstport":23}', '{"ip.src":"192.0.2.1","tcp.dstport":23}', '{"ip.src":"192.0.2.1","udp.dstport":1900}', '{"ip.src":"::ffff:10.0.0.1","tcp.dstport":2323}', '{}'];
    writeFileSync(join(dir, 'flows.ndjson'), lines.join('\n') + '\n');
    await fill('flows', lines);
    const here = await cli(['simulate', ruleset, 'flows.ndjson']);
    expect(here.status).toBe(0);
    const env = { CLICKHOUSE_USER: AUTH.user, CLICKHOUSE_PASSWORD: AUTH.password };
    const there = await cli(['simulate', ruleset, 'flows', '--engine', 'clickhouse', '--clickhouse-url', server.url], env);
    expect([there.status, there.stdout, there.stderr]).toEqual([0, here.stdout, '']);
    // Credentials in the URL win over the environment's.
    expect((await cli(['simulate', ruleset, 'default.flows', '--engine', 'clickhouse', '--clickhouse-url', withCredentials], { CLICKHOUSE_USER: 'nobody' })).stdout).toBe(here.stdout);
    const refused = await cli(['simulate', ruleset, 'flows', '--engine', 'clickhouse', '--clickhouse-url', server.url], { ...env, CLICKHOUSE_PASSWORD: 'wrong' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/simulation-unreadable-input.*Authentication failed/);
    const noTable = await cli(['simulate', ruleset, 'no_such_table', '--engine', 'clickhouse', '--clickhouse-url', withCredentials]);
    expect([noTable.status, /no_such_table/.test(noTable.stderr)]).toEqual([1, true]);
    expect((await cli(['simulate', ruleset, 'flows', '--engine', 'duckdb', '--clickhouse-url', server.url])).status).toBe(2);
    expect((await cli(['simulate', ruleset, 'flows', '--engine', 'clickhouse', '--clickhouse-url', 'ftp://x'])).status).toBe(2);
    expect((await cli(['simulate', ruleset, 'a.b.c', '--engine', 'clickhouse', '--clickhouse-url', withCredentials])).status).toBe(2);
  });
});

describe('rulekit query --clickhouse-url', () => {
  const LINES = Array.from({ length: 200 }, (_, i) => ({
    EdgeResponseStatus: [200, 404, 500, 503][i % 4],
    ClientRequestHost: i % 3 ? `h${i}.example.com` : `h${i}.example.org`,
    ...(i % 7 ? { ClientCountry: ['us', 'de', 'fr'][i % 3] } : {}),
  }));
  const FILTER = { where: { and: [{ key: 'EdgeResponseStatus', operator: 'geq', value: 500 }, { or: [{ key: 'ClientRequestHost', operator: 'endsWith', value: '.example.com' }, { key: 'ClientCountry', operator: '!in', value: ['us'] }] }] } };
  const matcher = compileLogFilter(JSON.stringify(FILTER), { dataset: 'http_requests' }).matcher!;
  const expected = LINES.filter((l) => matcher(l));

  beforeAll(async () => {
    writeFileSync(join(dir, 'filter.json'), JSON.stringify(FILTER));
    // JSON mode: each line as pushed. Column mode: typed columns, ClientCountry NULL where the line lacks it.
    await server.exec('CREATE TABLE raw_logs (line String) ENGINE = MergeTree ORDER BY tuple()');
    await server.exec(`INSERT INTO raw_logs VALUES ${LINES.map((l) => `(${sqlString(JSON.stringify(l), 'clickhouse')})`).join(', ')}`);
    await server.exec('CREATE TABLE logs (EdgeResponseStatus Int64, ClientRequestHost String, ClientCountry Nullable(String)) ENGINE = MergeTree ORDER BY tuple()');
    await server.exec(`INSERT INTO logs FORMAT JSONEachRow ${LINES.map((l) => JSON.stringify(l)).join('\n')}`);
  });

  it('counts and prints what the matcher keeps, in JSON mode and column mode', async () => {
    expect(expected.length).toBeGreaterThan(20);
    for (const table of ['raw_logs', 'logs']) {
      const count = await cli(['query', '--filter', 'filter.json', '--count', '--clickhouse-url', withCredentials, table]);
      expect([count.status, count.stderr, Number(count.stdout)], table).toEqual([0, '', expected.length]);
      const all = await cli(['query', '--filter', 'filter.json', '--format', 'ndjson', '--clickhouse-url', withCredentials, table]);
      const got = all.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      // Column mode prints the table's columns, NULL where the line lacked the field.
      const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));
      expect(got.map(strip), table).toEqual(expected);
    }
    const text = await cli(['query', '--filter', 'filter.json', '--limit', '2', '--clickhouse-url', withCredentials, 'logs']);
    expect(text.stdout).toContain(`${expected.length} of ${LINES.length} line(s) match`);
  });

  it('a field the table has no column for is missing on every row', async () => {
    writeFileSync(join(dir, 'absent.json'), JSON.stringify({ where: { or: [{ key: 'ClientIP', operator: 'eq', value: '192.0.2.1' }, { key: 'ClientASN', operator: '!eq', value: 1 }] } }));
    const r = await cli(['query', '--filter', 'absent.json', '--count', '--clickhouse-url', withCredentials, 'logs']);
    expect([r.status, r.stderr, r.stdout]).toEqual([0, '', '0\n']);
  });

  it('refuses a login, a missing table and a bad filter with the CLI\'s exit codes', async () => {
    const refused = await cli(['query', '--filter', 'filter.json', '--count', '--clickhouse-url', server.url, 'logs'], { CLICKHOUSE_USER: AUTH.user, CLICKHOUSE_PASSWORD: 'wrong' });
    expect([refused.status, /Authentication failed/.test(refused.stderr)]).toEqual([2, true]);
    const missing = await cli(['query', '--filter', 'filter.json', '--count', '--clickhouse-url', withCredentials, 'nope']);
    expect([missing.status, /nope/.test(missing.stderr)]).toEqual([2, true]);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ where: { key: 'EdgeResponseStatus', operator: 'startsWith', value: 5 } }));
    expect((await cli(['query', '--filter', 'bad.json', '--clickhouse-url', withCredentials, 'logs'])).status).toBe(1);
    expect((await cli(['query', '--filter', 'filter.json', '--clickhouse-url', withCredentials, 'logs', 'raw_logs'])).status).toBe(2);
  });

  it('sends every query through the HTTP interface, asking for gzip responses', () => {
    expect(server.queries.some((q) => q.startsWith('SELECT countIf(') && q.endsWith('FORMAT JSONEachRow'))).toBe(true);
    // rulekit asks for compressed responses, and reads them.
    expect([server.compressed + server.refused, server.refused > 0]).toEqual([server.queries.length, true]);
  });
});
