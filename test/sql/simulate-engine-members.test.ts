/**
 * `simulate --engine clickhouse` over NDJSON reads every member a rule reads with one parse of the line
 * (the dialect's `lineValues`: a Map of Dynamic values). Lines written as raw text, not by JSON.stringify,
 * hold what that reading could get wrong: a key given twice (JSON.parse keeps the last), keys written with
 * escapes, `null`, numbers as strings, strings the engine's type inference would take for dates or numbers,
 * numbers past 2^53 and written with exponents, arrays and objects of mixed types, whitespace; with blank
 * and non-object lines between. The summary, its example packets and the per-field invalid-value counts
 * equal the in-process simulator's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulation, simulateOnEngine } from '../../src/simulation/index.js';
import { invalidValuesByField } from '../helpers/sql-flows.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-simulate-members-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUNS = Number(process.env.SQL_RUNS ?? (process.env.CI ? 40 : 20));

/** Rules reading every field type (Int, String, Ip, Bool), terminating and not. */
const RULES = [
  { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {10.0.0.0/8}' },
  { action: 'block', expression: 'tcp.dstport == 80 or udp.dstport in {53 1900..1999}' },
  { action: 'block', expression: 'ip.proto == "tcp" and tcp.flags.syn and not tcp.flags.ack' },
  { action: 'block', expression: 'ip.dst in {192.0.2.0/24 2001:db8::/32} and ip.ttl < 64' },
  { action: 'block', expression: 'icmp.type == 8 or tcp.srcport >= 65000' },
];

const FIELDS = ['ip.src', 'ip.dst', 'ip.proto', 'ip.ttl', 'tcp.srcport', 'tcp.dstport', 'udp.dstport', 'icmp.type', 'tcp.flags.syn', 'tcp.flags.ack'];

/** A member name as JSON text: plain, or with a letter or the dot written as a \u escape. */
const keyArb = fc.tuple(fc.constantFrom(...FIELDS, 'other', ''), fc.nat(3)).map(([k, how]) => {
  if (how === 1 && k.includes('.')) return `"${k.replace('.', '\\u002e')}"`;
  if (how === 2 && k.length) return `"\\u${k.charCodeAt(0).toString(16).padStart(4, '0')}${k.slice(1)}"`;
  return JSON.stringify(k);
});

/** Values as JSON text: what each field takes, what it refuses, and what an engine could misread. */
const valueArb = fc.oneof(
  fc.constantFrom('80', '53', '1950', '8', '6', '0', '-0', '-0.0', '80.0', '8e1', '1E2', '0.5', '-1', '65536', '256', '1.5e300'),
  fc.constantFrom('9007199254740991', '9007199254740992', '9007199254740993', '18446744073709551615', '-9223372036854775808', '9223372036854775807'),
  fc.constantFrom('true', 'false', 'null', '[]', '[1,"a"]', '[[1,[2]],{"x":null}]', '{}', '{"x":[1,{"y":"z"}]}'),
  fc.constantFrom('"80"', '"8e1"', '"1.5"', '"2020-01-01"', '"2020-01-01 00:00:00"', '"true"', '"null"', '""', '"tcp"', '"icmp"', '"TCP"'),
  fc.constantFrom('"10.1.2.3"', '"192.0.2.7"', '"2001:db8::1"', '"2001:DB8::1"', '"192.0.2.07"', '"::ffff:192.0.2.1"', '"\\u0031\\u0039\\u0032.0.2.1"', '"192.0.2.1\\n"'),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)).filter((s) => !/\\ud[89a-f]/i.test(s)),
  fc.integer().map(String),
  // An integer literal past the 64-bit range (JSON.stringify writes doubles below 1e21 in digits) is a line
  // ClickHouse's parser refuses whole, in either reading: left out (see docs/sql.md).
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)).filter((t) => !/^-?\d{19,}$/.test(t)),
);

/** An object line as raw text: members in any order, a key possibly twice, spaces around the punctuation. */
const objectLineArb = fc.tuple(fc.array(fc.tuple(keyArb, valueArb), { maxLength: 8 }), fc.constantFrom('', ' ', '\t')).map(([members, sp]) => `${sp}{${members.map(([k, v]) => `${k}${sp}:${sp}${v}`).join(`,${sp}`)}}${sp}`);

const lineArb = fc.oneof({ weight: 10, arbitrary: objectLineArb }, { weight: 1, arbitrary: fc.constantFrom('', ' ', 'not json', '[1]', 'null', '"x"', '{"a":1', '{"a":1} x') });

describe('simulate on chdb: members read with one parse a line', () => {
  it('gives the in-process summary, examples and invalid-value counts over hostile NDJSON', async () => {
    let run = 0;
    let withInvalid = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 14 }), fc.subarray(RULES, { minLength: 1 }), async (lines, rules) => {
        const rulesetText = JSON.stringify({ rules });
        const ndjson = join(dir, `m${run++}.ndjson`);
        writeFileSync(ndjson, lines.join('\n') + '\n');
        const want = await runSimulation(rulesetText, ndjson, { threads: 0 });
        const got = await simulateOnEngine(rulesetText, [ndjson], { engine: 'clickhouse' });
        expect(got.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(got.summary).toEqual(want.summary);
        const wanted = invalidValuesByField(want.diagnostics, true);
        expect(invalidValuesByField(got.diagnostics, false)).toEqual(wanted);
        if (Object.keys(wanted).length) withInvalid++;
      }),
      { numRuns: RUNS },
    );
    expect(withInvalid).toBeGreaterThan(0);
  });

  it('reads a key given twice at its last value, keys with escapes, and strings that look like dates as text', async () => {
    const ndjson = join(dir, 'cases.ndjson');
    writeFileSync(ndjson, [
      '{"tcp.dstport":1,"tcp.dstport":80}',
      '{"tcp.dstport":80,"tcp.dstport":"80"}',
      '{"tcp\\u002edstport":80}',
      '{"ip.proto":"2020-01-01","tcp.flags.syn":true}',
      '{"ip.proto":"tcp","ip.proto":null,"tcp.flags.syn":true}',
      '{"ip.proto":"tcp","tcp.flags.syn":true,"tcp.flags.ack":false,"tcp.flags.syn":"1.5"}',
      '{"icmp.type":8e0,"tcp.srcport":9007199254740993}',
    ].join('\n') + '\n');
    const rulesetText = JSON.stringify({ rules: RULES });
    const want = await runSimulation(rulesetText, ndjson, { threads: 0 });
    const got = await simulateOnEngine(rulesetText, [ndjson], { engine: 'clickhouse' });
    expect(got.summary).toEqual(want.summary);
    const examples = Object.fromEntries(got.summary.rules.map((r) => [r.index, r.examples.map((e) => e.index)]));
    // The first line's last tcp.dstport (80) and the escaped key's; a Float64 8e0 and an Int past 2^53.
    expect([examples[1], examples[4]]).toEqual([[0, 2], [6]]);
    const invalid = got.diagnostics.filter((d) => d.code === 'simulation-invalid-value').map((d) => [d.data?.['field'], d.data?.['count']]);
    expect(invalid).toEqual([['tcp.srcport', 1], ['tcp.dstport', 1], ['ip.proto', 1], ['tcp.flags.syn', 1]]);
  });
});
