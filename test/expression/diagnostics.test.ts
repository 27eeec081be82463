import { describe, expect, it } from 'vitest';
import { compileExpression, checkExpression } from '../../src/expression/index.js';
import { renderDiagnostics } from '../../src/diagnostics/index.js';

/** [input, code, [start, end] of the first diagnostic with that code, fix text after applying the fix] */
const CASES: [string, string, [number, number], string?][] = [
  ['tcp.dstport == 80\tand ip.ttl > 1', 'tab-whitespace', [17, 18], 'tcp.dstport == 80 and ip.ttl > 1'],
  ['tcp.dstport == 80 AND ip.ttl > 1', 'uppercase-keyword', [18, 21], 'tcp.dstport == 80 and ip.ttl > 1'],
  ['tcp.dstport in {80, 443}', 'comma-in-set', [18, 19], 'tcp.dstport in {80 443}'],
  ['tcp.dstport in {80,443}', 'comma-in-set', [18, 19], 'tcp.dstport in {80 443}'],
  ['tcp.dstport in {80 , 443}', 'comma-in-set', [19, 20], 'tcp.dstport in {80 443}'],
  ['ip.src in {1.1.1.1, 2.2.2.2}', 'comma-in-set', [18, 19], 'ip.src in {1.1.1.1 2.2.2.2}'],
  ['tcp.dstport in {80,}', 'comma-in-set', [18, 19], 'tcp.dstport in {80}'],
  ['ip.src == 10.0.0.0/8', 'cidr-outside-set', [10, 20], 'ip.src in {10.0.0.0/8}'],
  ['tcp.dst_port == 80', 'unknown-field', [0, 12], 'tcp.dstport == 80'],
  ['tcp.dstport == 070', 'octal-literal', [15, 18], 'tcp.dstport == 70'],
  ['tcp.dstport == 08', 'invalid-integer', [15, 17]],
  ['tcp.dstport == 65536', 'value-out-of-range', [15, 20]],
  ['tcp.dstport in {9000..8000}', 'empty-range', [16, 26], 'tcp.dstport in {8000..9000}'],
  ['ip.src.country == "ZZ"', 'invalid-country-code', [18, 22]],
  ['ip.src.country == "br"', 'lowercase-country-code', [18, 22], 'ip.src.country == "BR"'],
  ['ip.proto == tcp', 'literal-type-mismatch', [12, 15], 'ip.proto == "tcp"'],
  ['tcp.dstport == "80"', 'literal-type-mismatch', [15, 19], 'tcp.dstport == 80'],
  ['cf.colo.name == "a\\nb"', 'invalid-escape', [18, 20]],
  ['cf.colo.name == "abc', 'unterminated-string', [16, 20], 'cf.colo.name == "abc"'],
  ['tcp.dstport == 80 tcp.srcport == 1', 'missing-operator', [18, 29], 'tcp.dstport == 80 and tcp.srcport == 1'],
  ['(tcp.dstport == 80', 'unexpected-end', [18, 18]],
  ['tcp.dstport ==', 'unexpected-end', [14, 14]],
  ['tcp.dstport == 1..5', 'range-outside-set', [15, 19]],
  ['ip.src in $svc.anonymiser', 'unknown-list', [10, 25], 'ip.src in $svc.anonymizer'],
  ['ip.src in $Bad', 'invalid-list-name', [10, 14]],
  ['tcp.flags.syn == 1', 'operator-type-mismatch', [14, 16]],
  ['tcp.dstport contains "x"', 'operator-type-mismatch', [12, 20]],
  ['tcp.dstport', 'not-boolean', [0, 11]],
  ['true', 'matches-everything', [0, 4]],
  ['tcp.flags.syn and true', 'boolean-literal', [18, 22]],
  ['cf.colo.name matches "(a"', 'invalid-regex', [21, 25]],
  ['bit_slice(tcp, 0, 40) == 1', 'function-arguments', [15, 20]],
  ['bit_slise(tcp, 0, 8) == 1', 'unknown-function', [0, 9], 'bit_slice(tcp, 0, 8) == 1'],
  ['ip.src in {10.0.0.1..2001:db8::1}', 'ip-family-mismatch', [11, 32]],
  ['ip.src in {10.0.0.1/8}', 'cidr-host-bits', [11, 21], 'ip.src in {10.0.0.0/8}'],
  ['ip.src == 10.0.0.256', 'invalid-ip', [10, 20]],
  ['cf.colo.name == aa:bb:c', 'invalid-byte-string', [16, 23]],
  ['tcp.dstport = 80', 'unexpected-character', [12, 13], 'tcp.dstport == 80'],
  ['', 'empty-expression', [0, 0]],
  ['ip.geoip.country == "BR"', 'deprecated-field', [0, 16]],
  ['ip.src in $blocklist', 'list-not-provided', [10, 20]],
];

function applyFix(text: string, edits: { range: { start: number; end: number }; newText: string }[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.range.start - a.range.start)) out = out.slice(0, e.range.start) + e.newText + out.slice(e.range.end);
  return out;
}

describe('diagnostics: code, range and fix', () => {
  it.each(CASES)('%s → %s', (input, code, [start, end], fixed) => {
    const r = compileExpression(input);
    const d = r.diagnostics.find((x) => x.code === code);
    expect(d, JSON.stringify(r.diagnostics)).toBeDefined();
    expect(d!.range).toEqual({ start, end });
    expect(d!.message.length).toBeGreaterThan(10);
    if (fixed !== undefined) {
      expect(d!.fix).toBeDefined();
      expect(applyFix(input, d!.fix!.edits)).toBe(fixed);
    }
    if (d!.severity === 'error') expect(r.matcher).toBeUndefined();
  });

  it('reports every independent error in one pass', () => {
    const r = compileExpression('tcp.dst_port == 80 AND ip.proto == tcp or ip.src == 10.0.0.0/8 or tcp.dstport in {1, 2}');
    const codes = r.diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['unknown-field', 'uppercase-keyword', 'literal-type-mismatch', 'cidr-outside-set', 'comma-in-set']));
    // sorted by position
    const starts = r.diagnostics.map((d) => d.range!.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('renders like a compiler: position, source line, caret, fix', () => {
    const text = 'tcp.dstport in {80, 443}';
    const out = renderDiagnostics(text, compileExpression(text).diagnostics, { file: 'rule.txt' });
    expect(out).toBe(
      ['rule.txt:1:19: error[comma-in-set]: set items are separated by spaces, not commas', '  tcp.dstport in {80, 443}', '                    ^', '  fix: remove the comma'].join('\n'),
    );
  });

  it('warnings keep the matcher', () => {
    const r = compileExpression('tcp.dstport == 070');
    expect(r.matcher).toBeDefined();
    expect(r.matcher!({ 'tcp.dstport': 56 })).toBe(true);
  });

  it('the list catalog: unknown lists, bad items and IPv6 in account lists', () => {
    const r = checkExpression('ip.src in $mylist or ip.dst in $other', { lists: { mylist: ['10.0.0.0/8', 'nonsense', '2001:db8::/32'] } });
    const codes = r.diagnostics.map((d) => d.code);
    expect(codes).toContain('invalid-list-item');
    expect(codes).toContain('ipv6-in-account-list');
    expect(codes).toContain('unknown-list');
  });

  it('a custom service token', () => {
    expect(compileExpression('ip.src in $cf.anonymizer', { serviceToken: 'cf', lists: { 'cf.anonymizer': ['192.0.2.0/24'] } }).matcher!({ 'ip.src': '192.0.2.9' })).toBe(true);
    expect(compileExpression('ip.src in $cf.anonymizer').diagnostics[0]!.code).toBe('unknown-list');
  });
});
