/**
 * DuckDB's NDJSON flows read with one map a line (`memberMaps`: each object line cast to
 * `MAP(VARCHAR, JSON)`) give the flow table the whole-line path gives (`json_extract` of every member)
 * row by row — every field column, the presence flags behind the invalid-value counts,
 * the address keys and the packet text of the examples — over generated packet lines mixed with the lines
 * a reader may take differently: not JSON, not objects, blank, a key given twice, nested values, numbers
 * past 2^53 or written `1.0`, `-0`, `1e400`, escaped keys and strings, a CR before the newline, a lone
 * surrogate, bytes that are not UTF-8; plain and gzip (the example packet's text included).
 * And the summary equals the in-process simulator's over such lines, and again where DuckDB refuses the
 * map reading (whole lines then).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation, simulateOnEngine } from '../../src/simulation/index.js';
import { flowSource } from '../../src/simulation/sql-engine.js';
import { openEngine } from '../../src/simulation/sql-runner.js';
import { dialectOf, flowFields } from '../../src/sql/index.js';
import { lineArb } from '../helpers/sql-rulesets.js';
import { invalidValuesByField } from '../helpers/sql-flows.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-member-maps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 30 : 15));

/** Lines both readings must take alike, the simulator too (see DUPLICATES and NOT_UTF8 for the others). */
export const EDGE_LINES = [
  '', '  ', '\t', 'not json', '{bad', '{"tcp.dstport":1} x', '{"tcp.dstport":1}{"udp.dstport":2}', '[1]', '"x"', '42', 'null', '{}',
  '{"tcp.dstport":9007199254740993,"ip.ttl":1.0}', '{"tcp.dstport":-0,"udp.dstport":2e1}', '{"ip.ttl":1e400,"icmp.type":12345678901234567890123}',
  '{"ip.src":null,"tcp.dstport":{"a":[1,null]},"ip.dst":["10.0.0.1"]}', '{"ip.\\u0073rc":"10.0.0.1","tcp.dst\\u0070ort":23}',
  '{"ip.proto":"t\\"c\\\\p\\n","ip.dst":"\\u0031\\u0030.0.0.1"}', '{"tcp.dstport":23}\r', '  {"tcp.flags.syn":true}  ', '{"tcp.flags.syn":"true","ip.ttl":"5"}',
  '{"ip.src":"::ffff:10.0.0.1","ip.dst":"2001:DB8::1"}', '{"ip.src":"010.0.0.1"}',
];
/** A key given twice: both readings take the first, JSON.parse the last (docs/sql.md). */
const DUPLICATES = ['{"tcp.dstport":22,"tcp.dstport":"x"}', '{"ip.src":"10.0.0.1","ip.src":null}'];
/** Not readable by either engine (no UTF-8 form), a packet to JSON.parse: compared between the readings only. */
const NOT_UTF8 = ['{"ip.proto":"\\ud800"}'];

const lines = (extra: readonly string[]) => fc.array(fc.oneof({ weight: 3, arbitrary: lineArb }, { weight: 2, arbitrary: fc.constantFrom(...EDGE_LINES, ...extra) }), { minLength: 1, maxLength: 14 });

describe('NDJSON flows read as one map a line (DuckDB)', () => {
  const fields = new Set(flowFields(undefined, { aliases: true }).map((f) => f.name));
  const dialect = dialectOf('duckdb');

  it('give the whole-line reading\'s flow table row by row, plain and gzip', async () => {
    const run = await openEngine('duckdb');
    let n = 0;
    try {
      await fc.assert(fc.asyncProperty(lines([...DUPLICATES, ...NOT_UTF8]), fc.boolean(), fc.boolean(), async (ls, gzip, badBytes) => {
        const file = join(dir, `t${n++}.ndjson`);
        let bytes = Buffer.from(ls.join('\n') + '\n');
        // A line holding bytes that are not UTF-8 (0xff 0xfe inside a string).
        if (badBytes) bytes = Buffer.concat([bytes, Buffer.from('{"ip.proto":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
        // gzip told by its bytes whatever the name.
        writeFileSync(file, gzip ? gzipSync(bytes) : bytes);
        const table = async (wholeLines: boolean) => {
          const s = await flowSource(run, dialect, [file], fields, false, { wholeLines });
          expect(Boolean(s.memberMaps), 'read as maps').toBe(!wholeLines);
          return run.rows(`SELECT * FROM ${s.from(true)} ORDER BY rn`);
        };
        const [maps, whole] = [await table(false), await table(true)];
        expect(maps).toEqual(whole);
      }), { numRuns: RUNS * 4 });
    } finally {
      await run.close();
    }
  });

  it('give the in-process summary over such lines, examples and invalid-value counts included', async () => {
    let n = 0;
    await fc.assert(fc.asyncProperty(lines([]), async (ls) => {
      const file = join(dir, `s${n++}.ndjson`);
      writeFileSync(file, ls.join('\n') + '\n');
      const rulesetText = JSON.stringify({ rules: [
        { action: 'block', expression: 'tcp.dstport in {1 22 23} and not tcp.flags.syn' },
        { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {10.0.0.0/8 ::/0}' },
        { action: 'block', expression: 'ip.ttl < 64 or icmp.type == 8 or udp.dstport == 20 or ip.proto == "tcp"' },
        { action: 'block', expression: 'ip.dst == 10.0.0.1 or ip.dst in {2001:db8::/32}' },
      ] });
      const want = await runSimulation(rulesetText, file, { threads: 0 });
      const got = await simulateOnEngine(rulesetText, [file], { engine: 'duckdb' });
      expect(got.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(got.summary).toEqual(want.summary);
      expect(invalidValuesByField(got.diagnostics, false)).toEqual(invalidValuesByField(want.diagnostics, true));
    }), { numRuns: RUNS });
  });
});
