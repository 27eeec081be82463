/**
 * The selective line scanner (what `rulekit logfilter` reads lines with): scanner + filter gives the
 * verdict of JSON.parse + filter on every line, valid or not; the values it reads are JSON.parse's; and
 * it leaves to JSON.parse what it cannot be sure of.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { compileLogFilter } from '../../src/logpush/index.js';
import { filterKeys, LineScanner, lineScannerFor, MAX_DEPTH } from '../../src/cli/line-scanner.js';
import { lineBytes, lineText, nodeArb } from '../helpers/logfilter-arbitraries.js';

type Verdict = 'not JSON' | 'not an object' | 'kept' | 'dropped';

/** The reference: the line decoded whole, JSON.parse, then the filter. */
function fullVerdict(bytes: Buffer, matcher: ((r: Record<string, unknown>) => boolean) | undefined): Verdict {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
  return !matcher || matcher(v as Record<string, unknown>) ? 'kept' : 'dropped';
}

/** As the CLI decides: the scanner on UTF-8 lines, JSON.parse for the rest and whatever it is unsure of. */
function scannedVerdict(bytes: Buffer, scanner: LineScanner, matcher: ((r: Record<string, unknown>) => boolean) | undefined): { verdict: Verdict; scanned: boolean } {
  const rec = isUtf8(bytes) ? scanner.scan(bytes, 0, bytes.length) : undefined;
  if (!rec) return { verdict: fullVerdict(bytes, matcher), scanned: false };
  return { verdict: !matcher || matcher(rec) ? 'kept' : 'dropped', scanned: true };
}

/** Deep equality by Object.is, own keys in order (toStrictEqual would read a "constructor" key as the type). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const compiled = (where: unknown) => compileLogFilter(JSON.stringify({ where }), { dataset: 'http_requests' });

describe('scanner + filter = JSON.parse + filter', () => {
  it('on arbitrary lines and filters: valid, malformed, escapes, duplicate keys, deep nesting, every number form, bytes that are not UTF-8', () => {
    let scanned = 0;
    let runs = 0;
    fc.assert(fc.property(nodeArb, fc.array(lineBytes, { minLength: 1, maxLength: 8 }), (where, lines) => {
      const c = compiled(where);
      if (!c.filter || !c.matcher) return;
      const scanner = lineScannerFor(c.filter)!;
      for (const bytes of lines) {
        runs++;
        const got = scannedVerdict(bytes, scanner, c.matcher);
        if (got.scanned) scanned++;
        expect(got.verdict, bytes.toString('utf8')).toBe(fullVerdict(bytes, c.matcher));
      }
    }), { numRuns: 1500 });
    // The property is worth something only if the scanner answered for a good share of the lines.
    expect(scanned / runs).toBeGreaterThan(0.3);
  });

  it('the values it reads are JSON.parse\'s (Object.is, strings code unit for code unit), and a line it answers for is a JSON object', () => {
    const keys = ['ClientCountry', 'ClientRequestPath', 'EdgeResponseStatus', 'BotScore', 'WorkerSubrequest', 'EdgeStartTimestamp', 'SecurityActions', 'BotDetectionIDs', '', 'é'];
    const scanner = new LineScanner(keys);
    fc.assert(fc.property(lineText, (text) => {
      const bytes = Buffer.from(text, 'utf8');
      const rec = scanner.scan(bytes, 0, bytes.length);
      if (!rec) return;
      const parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
      for (const k of keys) {
        const want = Object.hasOwn(parsed, k) ? parsed[k] : undefined;
        expect(same(rec[k], want), `${k}: ${JSON.stringify(rec[k])} vs ${JSON.stringify(want)}`).toBe(true);
      }
    }), { numRuns: 3000 });
  });
});

describe('what it reads itself and what it leaves to JSON.parse', () => {
  const s = new LineScanner(['EdgeResponseStatus', 'ClientCountry', 'SecurityActions']);
  const scan = (t: string) => {
    const b = Buffer.from(t, 'utf8');
    const r = s.scan(b, 0, b.length);
    return r && { ...r };
  };
  it('reads the wanted keys, any other value skipped, absent keys undefined', () => {
    expect(scan(' {"x":{"y":[1,{"z":"}"}]},"ClientCountry":"d\\u00e9","EdgeResponseStatus":-5.0e1, "SecurityActions":["a"] } ')).toEqual({ EdgeResponseStatus: -50, ClientCountry: 'dé', SecurityActions: ['a'] });
    expect(scan('{}')).toEqual({ EdgeResponseStatus: undefined, ClientCountry: undefined, SecurityActions: undefined });
    expect(Object.is(scan('{"EdgeResponseStatus":-0}')!['EdgeResponseStatus'], -0)).toBe(true);
    expect(scan('{"EdgeResponseStatus":12345678901234567890}')!['EdgeResponseStatus']).toBe(12345678901234567890);
    expect(scan('{"ClientCountry":"\\ud800"}')!['ClientCountry']).toBe('\ud800');
  });
  it('is unsure of a key with escapes, a wanted key twice, nesting deeper than MAX_DEPTH, and anything that is not a JSON object', () => {
    expect(scan('{"Client\\u0043ountry":"us"}')).toBeUndefined();
    expect(scan('{"ClientCountry":"us","ClientCountry":"de"}')).toBeUndefined();
    expect(scan('{"x":1,"x":2}')).toBeDefined(); // a key the filter does not read may repeat
    // The line's object is the first level.
    expect(scan(`{"x":${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}}`)).toBeDefined();
    expect(scan(`{"x":${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}}`)).toBeUndefined();
    expect(scan(`{"SecurityActions":${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}}`)).toBeUndefined();
    for (const bad of ['', '[]', '1', '{', '{"a":1,}', '{"a":01}', '{"a":1} x', '{"a":"\t"}', '{"a":"\\x"}', '{"a":tru}', '{"ClientCountry":"us"']) expect(scan(bad), bad).toBeUndefined();
  });
  it('reads a line inside a larger buffer without reading past its end', () => {
    const b = Buffer.from('{"EdgeResponseStatus":500}\n{"EdgeResponseStatus":5', 'utf8');
    expect(s.scan(b, 0, 26)?.['EdgeResponseStatus']).toBe(500);
    // scanLine finds the line's end: the LF, or the limit.
    expect(s.scanLine(b, 0, b.length)).toBe(26);
    expect(s.record['EdgeResponseStatus']).toBe(500);
    expect(s.scanLine(Buffer.from('{"a":1} \r\n'), 0, 10)).toBe(9);
    expect(s.scanLine(Buffer.from('{"a":1}'), 0, 7)).toBe(7);
    // An LF inside the object: the line ends there, unreadable.
    expect(s.scanLine(Buffer.from('{"a":\n1}'), 0, 9)).toBe(-1);
    expect(s.scanLine(Buffer.from('{"a":"\n"}'), 0, 10)).toBe(-1);
    expect(s.scan(b, 27, b.length)).toBeUndefined();
    expect(s.scan(b, 0, 20)).toBeUndefined();
  });
  it('keys: each clause\'s once; no scanner for keys every object inherits', () => {
    const c = compiled({ or: [{ key: 'ClientCountry', operator: 'eq', value: 'us' }, { and: [{ key: 'ClientCountry', operator: 'eq', value: 'de' }, { key: 'BotScore', operator: 'lt', value: 5 }] }] });
    expect(filterKeys(c.filter!.where)).toEqual(['ClientCountry', 'BotScore']);
    expect(lineScannerFor({ ...c.filter!, where: { kind: 'clause', key: 'constructor', operator: 'eq', value: 'x', operand: 'x', fieldType: 'string', pointer: '/where' } })).toBeUndefined();
  });
});
