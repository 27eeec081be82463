/** Issue 9, "messages worth reading": each bad input gets one clear diagnostic with the likely fix. */
import { describe, expect, it } from 'vitest';
import { compileExpression, checkExpression, validateRuleset, toWireshark, type Diagnostic } from '../../src/index.js';
import { IP_PROTOCOL_NAMES as fromCapture } from '../../src/capture/index.js';
import { IP_PROTOCOL_NAMES as fromNet } from '../../src/net/ip-protocols.js';

const diags = (e: string) => checkExpression(e).diagnostics;
const applyFix = (text: string, d: Diagnostic) => {
  const edits = [...d.fix!.edits].sort((a, b) => b.range.start - a.range.start);
  for (const e of edits) text = text.slice(0, e.range.start) + e.newText + text.slice(e.range.end);
  return text;
};

describe('sets written in brackets', () => {
  it('tcp.dstport in [80 443]: one error whose fix writes {80 443}', () => {
    const e = 'tcp.dstport in [80 443]';
    const d = diags(e);
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toContain('{80 443}');
    expect(applyFix(e, d[0]!)).toBe('tcp.dstport in {80 443}');
    expect(diags(applyFix(e, d[0]!))).toEqual([]);
  });
  it('commas inside the brackets are part of the same answer', () => {
    const e = 'tcp.dstport in [80, 443]';
    const d = diags(e);
    expect(d.map((x) => x.code)).toEqual(['syntax-error']);
    expect(applyFix(e, d[0]!)).toBe('tcp.dstport in {80 443}');
  });
  it('the items are still checked', () => {
    expect(diags('tcp.dstport in [80 70000]').map((d) => d.code)).toEqual(['syntax-error', 'value-out-of-range']);
  });
});

describe('a single =', () => {
  it('tcp.dstport = 80: one error with the fix ==, no doubled quotes', () => {
    const d = diags('tcp.dstport = 80');
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toBe("unexpected '='; did you mean '=='?");
    expect(applyFix('tcp.dstport = 80', d[0]!)).toBe('tcp.dstport == 80');
  });
});

describe('udp.port', () => {
  it('suggests udp.dstport and udp.srcport', () => {
    const d = diags('udp.port == 53');
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toContain('udp.dstport');
    expect(d[0]!.message).toContain('udp.srcport');
    expect(d[0]!.fix?.edits[0]?.newText).toBe('udp.dstport');
  });
});

describe('ip.proto names', () => {
  it('"TCP" is a warning with the lower-case fix; "foo" an error; "icpm" suggests "icmp"', () => {
    const upper = diags('ip.proto == "TCP"');
    expect(upper.map((d) => `${d.severity}:${d.code}`)).toEqual(['warning:uppercase-protocol']);
    expect(applyFix('ip.proto == "TCP"', upper[0]!)).toBe('ip.proto == "tcp"');
    expect(diags('ip.proto == "foo"').map((d) => `${d.severity}:${d.code}`)).toEqual(['warning:unknown-protocol']);
    expect(diags('ip.proto ne "icpm"')[0]!.fix?.edits[0]?.newText).toBe('"icmp"');
    expect(diags('ip.proto in {"tcp" "Udp" "bogus"}').map((d) => d.code)).toEqual(['uppercase-protocol', 'unknown-protocol']);
  });
  it('known names and numbers without a keyword pass', () => {
    for (const e of ['ip.proto == "tcp"', 'ip.proto == "ipv6-icmp"', 'ip.proto == "253"', 'ip.proto in {"udp" "gre"}', 'ip.proto contains "T"']) expect(diags(e), e).toEqual([]);
  });
  it('one protocol table: the capture decoder, the checker and the exporter read the same names', () => {
    expect(fromCapture).toBe(fromNet);
    expect(toWireshark('ip.proto == "foo"').filter).toBeUndefined();
  });
});

describe('duplicate and overlapping set items', () => {
  it('{80 80}: a warning whose fix removes the second', () => {
    const e = 'tcp.dstport in {80 80 443}';
    const d = diags(e);
    expect(d.map((x) => `${x.severity}:${x.code}`)).toEqual(['warning:duplicate-set-item']);
    expect(applyFix(e, d[0]!)).toBe('tcp.dstport in {80 443}');
    expect(compileExpression(e).matcher).toBeDefined();
  });
  it('a CIDR inside another CIDR of the set: a warning whose fix removes the narrower', () => {
    const e = 'ip.src in {10.1.0.0/16 10.0.0.0/8 192.0.2.0/24}';
    const d = diags(e);
    expect(d.map((x) => x.code)).toEqual(['duplicate-set-item']);
    expect(d[0]!.message).toContain('10.0.0.0/8');
    expect(applyFix(e, d[0]!)).toBe('ip.src in {10.0.0.0/8 192.0.2.0/24}');
  });
  it('overlapping Int ranges: the fix merges them; IPv4 and IPv6 never overlap', () => {
    const e = 'tcp.dstport in {1..10 5..20}';
    const d = diags(e);
    expect(d.map((x) => x.code)).toEqual(['duplicate-set-item']);
    expect(applyFix(e, d[0]!)).toBe('tcp.dstport in {1..20}');
    expect(diags('ip.src in {0.0.0.0/0 ::/0}')).toEqual([]);
    expect(diags('cf.colo.name in {"a" "a"}').map((x) => x.code)).toEqual(['duplicate-set-item']);
  });
});

describe('text that is not Unicode as written', () => {
  it('a lone surrogate in a string is reported with its position', () => {
    const e = 'cf.colo.name == "a\ud800b"';
    const d = diags(e).filter((x) => x.code === 'lone-surrogate');
    expect(d).toHaveLength(1);
    expect(d[0]!.range).toEqual({ start: 18, end: 19 });
    expect(compileExpression(e).matcher).toBeUndefined();
    expect(diags('cf.colo.name == "😀"')).toEqual([]);
  });
  it('a byte order mark at the start is skipped, never "invalid symbol"', () => {
    expect(diags('\ufefftcp.dstport == 80')).toEqual([]);
    expect(validateRuleset('\ufeff{"rules": []}', { operation: 'update' })).toEqual([]);
  });
  it('a lone surrogate escape in a JSON body is reported with its range', () => {
    const body = '{"rules": [], "description": "x\\ud800y"}';
    const d = validateRuleset(body, { operation: 'update' }).filter((x) => x.code === 'lone-surrogate');
    expect(d).toHaveLength(1);
    expect(body.slice(d[0]!.range!.start, d[0]!.range!.end)).toBe('\\ud800');
    // a pair, and an escaped backslash before "ud800", are fine
    expect(validateRuleset('{"rules": [], "description": "\\ud83d\\ude00 \\\\ud800"}', { operation: 'update' }).filter((x) => x.code === 'lone-surrogate')).toEqual([]);
  });
});

describe('validateRuleset of non-objects', () => {
  it('undefined: no "undefined undefined"', () => {
    const [d] = validateRuleset(undefined);
    expect(d!.message).not.toContain('undefined undefined');
    expect(d!.message).toContain('undefined');
    expect(validateRuleset(42)[0]!.message).toContain('the number 42');
  });
});

describe('option values that would recurse', () => {
  it('a deep list or scheme value is a diagnostic, not a RangeError', () => {
    let arr: unknown = [];
    for (let i = 0; i < 10_000; i++) arr = [arr];
    let obj: unknown = {};
    for (let i = 0; i < 10_000; i++) obj = { a: obj };
    expect(compileExpression('ip.src in $x', { lists: { x: [arr] as never } }).diagnostics.map((d) => d.code)).toContain('invalid-list-item');
    expect(compileExpression('ip.src == 192.0.2.1', { scheme: { f: obj } as never }).diagnostics.map((d) => d.code)).toContain('invalid-scheme');
    expect(compileExpression('ip.src == 192.0.2.1', { scheme: { f: 10n } as never }).diagnostics.map((d) => d.code)).toContain('invalid-scheme');
  });
});
