/**
 * `rulekit simulate` on bad input, run as a user runs it: exit 1 for a malformed ruleset (with line and
 * column), a corrupt capture or invalid NDJSON lines; diagnostics on stderr when stdout holds per-packet
 * NDJSON; truncated-record messages that name their offset once; one deprecation note, not two.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'capture');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-sim-cli-'));

function run(args: string[], input?: string | Buffer) {
  return runCli(args, { input });
}

const rulesetPath = join(dir, 'ruleset.json');
writeFileSync(rulesetPath, JSON.stringify({ rules: [{ action: 'block', expression: 'tcp.dstport in {22 23}' }] }));

describe('rulekit simulate exit codes and messages', () => {
  it('a malformed ruleset exits 1 with line and column', () => {
    const bad = join(dir, 'malformed.json');
    writeFileSync(bad, '{\n  "rules": [\n    {"action": "block", "expression": "tcp.dstport == 22"\n');
    const r = run(['simulate', bad, join(FIXTURES, 'mixed-le-usec.pcap')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: error\\[ruleset-invalid-json\\]`));
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('a ruleset whose expression has an error exits 1 with its position in the file', () => {
    const bad = join(dir, 'bad-expr.json');
    writeFileSync(bad, '{"rules": [\n  {"action": "block", "expression": "tcp.dstport == 99999"}\n]}\n');
    const r = run(['simulate', bad, join(FIXTURES, 'mixed-le-usec.pcap')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bad-expr\.json:2:\d+ \/rules\/0\/expression: error/);
  });

  it('a capture with a corrupt record exits 1; its message names the byte offset once', () => {
    const r = run(['simulate', rulesetPath, join(FIXTURES, 'corrupt-record.pcap')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('capture-corrupt-record');
    expect(r.out).not.toMatch(/at byte (\d+): At byte \1/i);
    const cut = run(['simulate', rulesetPath, join(FIXTURES, 'truncated-end.pcap')]);
    expect(cut.out).not.toMatch(/at byte (\d+): At byte \1/i);
  });

  it('--format ndjson: verdict lines on stdout, diagnostics on stderr, exit 1 for invalid lines', () => {
    const r = run(['simulate', rulesetPath, '-', '--format', 'ndjson'], '{"tcp.dstport": 22}\nnot json\n{"tcp.dstport": "22"}\n');
    expect(r.code).toBe(1);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => 'verdict' in l)).toHaveLength(2);
    expect(r.err).toContain('standard input:2:1: error[simulation-invalid-packet]: not JSON');
    expect(r.err).toContain('warning[simulation-invalid-value]');
  });

  it('--ndjson-diagnostics: the diagnostics as {"diagnostic": …} lines after the summary line', () => {
    const r = run(['simulate', rulesetPath, '-', '--format', 'ndjson', '--ndjson-diagnostics'], '{"tcp.dstport": 22}\nnot json\n');
    expect(r.code).toBe(1);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const summaryAt = lines.findIndex((l) => 'summary' in l);
    expect(summaryAt).toBe(1);
    expect(lines.slice(summaryAt + 1)).toEqual([{ diagnostic: expect.objectContaining({ code: 'simulation-invalid-packet', severity: 'error' }) }]);
  });

  it('random bytes with --format ndjson: one error on stderr, exit 1', () => {
    const junk = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919 + 13) % 256));
    const r = run(['simulate', rulesetPath, '-', '--format', 'ndjson'], junk);
    expect(r.code).toBe(1);
    expect(r.err).toContain('simulation-unknown-input');
  });

  it('--geoip with a deprecated field: the deprecation note once', () => {
    const geoRules = join(dir, 'geo-rules.json');
    writeFileSync(geoRules, JSON.stringify({ rules: [{ action: 'block', expression: 'ip.geoip.country == "BR"' }] }));
    const r = run(['simulate', geoRules, join(FIXTURES, 'mixed-le-usec.pcap'), '--geoip', join(FIXTURES, 'geo.csv')]);
    expect(r.code).toBe(0);
    expect(r.out.match(/deprecated-field/g)).toHaveLength(1);
  });

  it('a capture or --geoip path that is a directory, a FIFO or missing: one line naming it, exit 2', () => {
    const fifo = join(dir, 'fifo');
    spawnSync('mkfifo', [fifo]);
    const capture = join(FIXTURES, 'mixed-le-usec.pcap');
    for (const args of [
      [rulesetPath, dir],
      [rulesetPath, fifo],
      [rulesetPath, join(dir, 'missing.pcap')],
      [rulesetPath, capture, '--geoip', dir],
      [rulesetPath, capture, '--geoip', join(dir, 'missing.csv')],
    ]) {
      const r = run(['simulate', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.err).toMatch(/^rulekit: \/.+: (is a directory|is a named pipe|no such file)/);
    }
  });

  it('--geoip that is not a table exits 1', () => {
    const notGeo = join(dir, 'not-geo.csv');
    writeFileSync(notGeo, 'this is not\na table\n');
    const geoRules = join(dir, 'geo-rules2.json');
    writeFileSync(geoRules, JSON.stringify({ rules: [{ action: 'block', expression: 'ip.src.country == "BR"' }] }));
    const r = run(['simulate', geoRules, join(FIXTURES, 'mixed-le-usec.pcap'), '--geoip', notGeo]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('simulation-bad-geoip');
  });
});

describe('rulekit simulate never decides over input it did not read', () => {
  it('a capture given to --engine is refused (exit 2, one line naming the capture): the engines read flow rows, and a capture read as rows was "packets 0"', () => {
    for (const [file, format] of [['mixed-le-usec.pcap', 'pcap'], ['corrupt-block.pcapng', 'pcapng']] as const) {
      const r = run(['simulate', rulesetPath, join(FIXTURES, file), '--engine', 'duckdb']);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`is a ${format} capture, but --engine reads flow rows`);
      expect(r.out).toBe('');
    }
    const glob = run(['simulate', rulesetPath, join(FIXTURES, '*.pcap'), '--engine', 'duckdb']);
    expect(glob.code).toBe(2);
    expect(glob.err).toContain('is a pcap capture');
  });

  it('an NDJSON packet with a misspelt field is a warning naming the nearest field, once per name', () => {
    const packets = join(dir, 'misspelt.ndjson');
    writeFileSync(packets, '{"tcp.dst_port": 22}\n{"tcp.dst_port": 23, "ip.src": "192.0.2.1"}\n{"tcp.dstport": 22}\n');
    const r = run(['simulate', rulesetPath, packets]);
    expect(r.code).toBe(0);
    const warnings = r.out.split('\n').filter((l) => l.includes('simulation-unknown-field'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('line 1: unknown field tcp.dst_port; did you mean tcp.dstport?');
    expect(r.out).toMatch(/packets 3: allowed 2 .*blocked 1/);
  });
});
