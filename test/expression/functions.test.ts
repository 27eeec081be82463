/**
 * The function catalog against the docs: every example of the functions reference evaluates as the docs
 * say (interpreter, compiled matcher and closures alike), every documented restriction is a diagnostic,
 * every function has an example in the corpus, and the catalog, completion and the docs page agree.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileExpression, FUNCTIONS, FUNCTIONS_SOURCE, HTTP_SCHEME, interpret } from '../../src/expression/index.js';
import fc from 'fast-check';
import { concat, encodeBase64, endsWith, hmacSha256Base64, len, removeBytes, sha256Digest, startsWith, substring } from '../../src/expression/function-runtime.js';
import { bytesValue, compareValues, hasEscapedBytes, valueByteLength, valueBytes } from '../../src/expression/bytes.js';
import { createHash } from 'node:crypto';
import { completeExpression } from '../../src/language/index.js';

interface Case { function: string; expr: string; record: Record<string, unknown>; result: boolean; context?: 'value'; note?: string }
interface Invalid { function: string; expr: string; error: string; context?: 'value'; phase?: string; note?: string }
const corpus = JSON.parse(readFileSync(new URL('./functions/docs-functions.json', import.meta.url), 'utf8')) as { source: string; cases: Case[]; invalid: Invalid[] };

/** `{"$map": {...}}` → a Map (records hold real Maps, never plain objects). */
function record(r: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    out[k] = v !== null && typeof v === 'object' && '$map' in (v as object) ? new Map(Object.entries((v as { $map: Record<string, unknown> }).$map)) : v;
  }
  return out;
}

describe('docs examples of every function', () => {
  it('cite the revision the catalog was written from', () => {
    expect(corpus.source).toContain(FUNCTIONS_SOURCE.revision);
    expect(corpus.source).toContain(FUNCTIONS_SOURCE.path);
  });
  for (const c of corpus.cases) {
    it(`${c.function}: ${c.expr}`, () => {
      const r = compileExpression(c.expr, { scheme: HTTP_SCHEME, context: c.context });
      expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const rec = record(c.record);
      expect(r.matcher!(rec)).toBe(c.result);
      expect(interpret(r.checked!, rec)).toBe(c.result);
      expect(compileExpression(c.expr, { scheme: HTTP_SCHEME, context: c.context, codegen: false }).matcher!(rec)).toBe(c.result);
    });
  }
  for (const c of corpus.invalid) {
    it(`${c.function} restriction: ${c.expr} → ${c.error}`, () => {
      const r = compileExpression(c.expr, { scheme: HTTP_SCHEME, context: c.context, phase: c.phase });
      expect(r.matcher).toBeUndefined();
      expect(r.diagnostics.find((d) => d.severity === 'error')?.code).toBe(c.error);
    });
  }
  it('every function of the catalog has an example in the corpus (bit_slice in the network corpus)', () => {
    const covered = new Set([...corpus.cases.map((c) => c.function), 'bit_slice', 'is_timed_hmac_valid_v0']);
    expect(Object.keys(FUNCTIONS).filter((f) => !covered.has(f))).toEqual([]);
  });
});

describe('is_timed_hmac_valid_v0', () => {
  const now = 1484063787;
  const message = '/download/cat.jpg';
  const mac = hmacSha256Base64('mysecretkey', message + String(now));
  const uri = `${message}?verify=${now}-${encodeURIComponent(mac)}`;
  const expr = 'is_timed_hmac_valid_v0("mysecretkey", http.request.uri, 100000, http.request.timestamp.sec, 8)';
  const r = compileExpression(expr, { scheme: HTTP_SCHEME });
  it('accepts a token made with the key, the docs MessageMAC layout and a URL-encoded MAC', () => {
    expect(r.diagnostics).toEqual([]);
    expect(r.matcher!({ 'http.request.uri': uri, 'http.request.timestamp.sec': now + 10 })).toBe(true);
    expect(interpret(r.checked!, { 'http.request.uri': uri, 'http.request.timestamp.sec': now + 10 })).toBe(true);
  });
  it('refuses an expired token, another key, a changed message, a future time', () => {
    expect(r.matcher!({ 'http.request.uri': uri, 'http.request.timestamp.sec': now + 100001 })).toBe(false);
    expect(r.matcher!({ 'http.request.uri': uri.replace('cat', 'dog'), 'http.request.timestamp.sec': now })).toBe(false);
    expect(r.matcher!({ 'http.request.uri': uri, 'http.request.timestamp.sec': now - 1 })).toBe(false);
    const other = compileExpression(expr.replace('mysecretkey', 'otherkey'), { scheme: HTTP_SCHEME });
    expect(other.matcher!({ 'http.request.uri': uri, 'http.request.timestamp.sec': now })).toBe(false);
  });
  it('with flags "s" reads URL-safe Base64 without padding', () => {
    const safe = mac.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const s = compileExpression('is_timed_hmac_valid_v0("mysecretkey", http.request.uri, 100000, http.request.timestamp.sec, 8, "s")', { scheme: HTTP_SCHEME });
    expect(s.matcher!({ 'http.request.uri': `${message}?verify=${now}-${safe}`, 'http.request.timestamp.sec': now })).toBe(true);
  });
});

describe('the catalog, completion and the docs page agree', () => {
  it('completion offers every function of the catalog in an HTTP expression', () => {
    const items = completeExpression('', 0, { scheme: HTTP_SCHEME }).items.map((i) => i.label);
    for (const name of Object.keys(FUNCTIONS)) expect(items).toContain(name);
  });
  it('docs/fields.md lists every function with its signature', () => {
    const page = readFileSync(new URL('../../docs/fields.md', import.meta.url), 'utf8');
    for (const [name, f] of Object.entries(FUNCTIONS)) {
      expect(page).toContain(`### \`${name}\``);
      expect(page).toContain(f.signature);
    }
  });
});

describe('encode_base64 and sha256 against node:crypto and Buffer', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 40 });
  const flags = fc.constantFrom('', 'u', 'p', 'up', 'pu');
  const node = (bytes: Buffer, f: string) => {
    const b = bytes.toString(f.includes('u') ? 'base64url' : 'base64').replace(/=+$/, '');
    return f.includes('p') ? b + '='.repeat((4 - (b.length % 4)) % 4) : b;
  };
  it('encode_base64(x, flags) is the Base64 of the UTF-8 bytes: u URL-safe, p padded', () => {
    fc.assert(
      fc.property(text, flags, (s, f) => {
        expect(encodeBase64(s, f)).toBe(node(Buffer.from(s, 'utf8'), f));
      }),
      { numRuns: 1000 },
    );
  });
  it('encode_base64(sha256(x)) is the Base64 of the SHA-256 digest, also of a digest again', () => {
    fc.assert(
      fc.property(text, flags, (s, f) => {
        const digest = createHash('sha256').update(s, 'utf8').digest();
        expect(encodeBase64(sha256Digest(s), f)).toBe(node(digest, f));
        expect(encodeBase64(sha256Digest(sha256Digest(s)), f)).toBe(node(createHash('sha256').update(digest).digest(), f));
        expect(valueBytes(sha256Digest(s))).toEqual(new Uint8Array(digest));
      }),
      { numRuns: 500 },
    );
  });
});

describe('len counts bytes', () => {
  const units = fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdc80, 0xdcff, 0xdfff, 0x7f, 0x80, 0x7ff, 0x800)), { maxLength: 12 });
  it('as TextEncoder does for text without escaped bytes (other lone surrogates are U+FFFD)', () => {
    fc.assert(
      fc.property(units, (codes) => {
        const s = String.fromCharCode(...codes);
        expect(valueByteLength(s)).toBe(valueBytes(s).length);
        if (!hasEscapedBytes(s)) expect(valueByteLength(s)).toBe(new TextEncoder().encode(s).length);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('raw bytes (digests, cut characters) against Buffer and node:crypto', () => {
  const text = fc.string({ unit: 'binary', maxLength: 40 });
  const bytes = fc.uint8Array({ maxLength: 40 });
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  const index = fc.integer({ min: -40, max: 40 });
  /** Buffer.subarray with substring's indexes (negative from the end, clamped). */
  const cut = (b: Uint8Array, from: number, to?: number) => {
    const at = (i: number) => (i < 0 ? Math.max(0, b.length + i) : Math.min(i, b.length));
    const f = at(from);
    const t = to === undefined ? b.length : at(to);
    return t <= f ? new Uint8Array() : b.subarray(f, t);
  };
  it('len(sha256(s)) is 32, as are its bytes', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(len(sha256Digest(s))).toBe(32);
        expect(valueBytes(sha256Digest(s))).toEqual(new Uint8Array(digest(s)));
      }),
      { numRuns: 500 },
    );
  });
  it('substring on a digest is Buffer.subarray, in Base64 too', () => {
    fc.assert(
      fc.property(text, index, fc.option(index, { nil: undefined }), (s, from, to) => {
        const want = cut(digest(s), from, to);
        const got = substring(sha256Digest(s), from, to);
        expect(valueBytes(got)).toEqual(new Uint8Array(want));
        expect(len(got)).toBe(want.length);
        expect(encodeBase64(got)).toBe(Buffer.from(want).toString('base64').replace(/=+$/, ''));
      }),
      { numRuns: 500 },
    );
    const d = createHash('sha256').update('x').digest();
    expect(encodeBase64(substring(sha256Digest('x'), 0, 4))).toBe(d.subarray(0, 4).toString('base64').replace(/=+$/, ''));
  });
  it('substring, remove_bytes, starts_with and ends_with on any bytes are the Buffer ones', () => {
    fc.assert(
      fc.property(bytes, bytes, index, fc.option(index, { nil: undefined }), (a, b, from, to) => {
        const va = bytesValue(a);
        const vb = bytesValue(b);
        expect(valueBytes(substring(va, from, to))).toEqual(new Uint8Array(cut(a, from, to)));
        expect(valueBytes(removeBytes(va, vb))).toEqual(a.filter((x) => !b.includes(x)));
        expect(startsWith(va, vb)).toBe(Buffer.from(a).subarray(0, b.length).equals(b));
        expect(endsWith(va, vb)).toBe(b.length <= a.length && Buffer.from(a).subarray(a.length - b.length).equals(b));
        const prefix = substring(va, 0, from);
        expect(startsWith(va, prefix)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
  it('starts_with and ends_with are byte prefix and suffix on text mixed with escaped bytes', () => {
    const piece = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 3 }), fc.integer({ min: 0xdc80, max: 0xdcff }).map((c) => String.fromCharCode(c)));
    const value = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
    const isAt = (a: Uint8Array, b: Uint8Array, end: boolean) => b.length <= a.length && Buffer.from(a).subarray(end ? a.length - b.length : 0, end ? a.length : b.length).equals(b);
    fc.assert(
      fc.property(value, value, fc.nat(12), (s, other, k) => {
        for (const part of [other, s.slice(0, k), s.slice(s.length - k), substring(s, 0, k), substring(s, -k)]) {
          expect(startsWith(s, part)).toBe(isAt(valueBytes(s), valueBytes(part), false));
          expect(endsWith(s, part)).toBe(isAt(valueBytes(s), valueBytes(part), true));
        }
      }),
      { numRuns: 2000 },
    );
  });
  it('bytes and values round-trip: bytes(value(b)) = b, value(bytes(v)) = v for text and made values', () => {
    fc.assert(
      fc.property(bytes, (b) => {
        expect(valueBytes(bytesValue(b))).toEqual(b);
        expect(bytesValue(valueBytes(bytesValue(b)))).toBe(bytesValue(b));
        // Valid UTF-8 is text, as Buffer reads it.
        const buf = Buffer.from(b);
        if (Buffer.from(buf.toString('utf8'), 'utf8').equals(buf)) expect(bytesValue(b)).toBe(buf.toString('utf8'));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (s) => {
        expect(bytesValue(valueBytes(s))).toBe(s);
        expect(valueBytes(s)).toEqual(new Uint8Array(Buffer.from(s, 'utf8')));
      }),
      { numRuns: 2000 },
    );
  });
  it('interpreter, generated matcher and closures agree with node:crypto on digest bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.integer({ min: 0, max: 31 }), (host, i) => {
        const d = digest(host);
        const hex = `\\x${d[i]!.toString(16).padStart(2, '0')}`;
        const b64 = d.subarray(0, 4).toString('base64').replace(/=+$/, '');
        const expr = `len(sha256(http.host)) == 32 and substring(sha256(http.host), ${i}, ${i + 1}) == "${hex}" and encode_base64(substring(sha256(http.host), 0, 4)) == "${b64}"`;
        const r = compileExpression(expr, { scheme: HTTP_SCHEME });
        expect(r.diagnostics.filter((x) => x.severity === 'error'), expr).toEqual([]);
        const rec = { 'http.host': host };
        expect(r.matcher!(rec), expr).toBe(true);
        expect(interpret(r.checked!, rec), expr).toBe(true);
        expect(compileExpression(expr, { scheme: HTTP_SCHEME, codegen: false }).matcher!(rec), expr).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
  it('< on strings is byte order, as Buffer.compare has it', () => {
    const units = fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0x41, 0x7f, 0xdc80, 0xdcff, 0xe000, 0xffff, 0xd83d, 0xde00)), { maxLength: 6 });
    fc.assert(
      fc.property(fc.oneof(units.map((u) => String.fromCharCode(...u)), bytes.map(bytesValue)), fc.oneof(units.map((u) => String.fromCharCode(...u)), bytes.map(bytesValue)), (a, b) => {
        expect(Math.sign(compareValues(a, b))).toBe(Buffer.compare(Buffer.from(valueBytes(a)), Buffer.from(valueBytes(b))));
      }),
      { numRuns: 3000 },
    );
    const r = compileExpression('http.host < "\\xc3" and http.host > "\\x7f"', { scheme: HTTP_SCHEME });
    for (const m of [r.matcher!, (rec: Record<string, unknown>) => interpret(r.checked!, rec), compileExpression('http.host < "\\xc3" and http.host > "\\x7f"', { scheme: HTTP_SCHEME, codegen: false }).matcher!]) {
      expect(m({ 'http.host': '\udc80' })).toBe(true);
      expect(m({ 'http.host': 'é' })).toBe(false);
      expect(m({ 'http.host': '\u0080' })).toBe(true);
      expect(m({ 'http.host': 'z' })).toBe(false);
      expect(m({ 'http.host': '\ue000' })).toBe(false);
    }
  });
  it('a leading byte order mark is kept, a cut character joins up again', () => {
    expect(substring('\ufeffa', 0)).toBe('\ufeffa');
    expect(len(substring('é', 0, 1))).toBe(1);
    expect(startsWith('é', substring('é', 0, 1))).toBe(true);
    expect(startsWith('é', '\udcc3')).toBe(true);
    expect(concat(substring('é', 0, 1), substring('é', 1))).toBe('é');
  });
});

describe('value expressions (action_parameters)', () => {
  it('allow the rewrite-only functions and give their value', async () => {
    const { checkValueExpression, evaluateValueExpression } = await import('../../src/expression/index.js');
    const r = checkValueExpression('wildcard_replace(http.request.uri.path, "/apps/*", "/${1}")', { scheme: HTTP_SCHEME });
    expect(r.diagnostics).toEqual([]);
    expect(evaluateValueExpression(r.plan!, { 'http.request.uri.path': '/Apps/calendar' })).toBe('/calendar');
    expect(evaluateValueExpression(r.plan!, {})).toBeUndefined();
  });
  it('must give the type of their parameter; a Bool one is a condition', async () => {
    const { checkValueExpression } = await import('../../src/expression/index.js');
    expect(checkValueExpression('len(http.host)', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['value-expression-type']);
    expect(checkValueExpression('http.host == "a"', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['value-expression-type']);
    expect(checkValueExpression('http.request.headers.names[*]', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['array-needs-quantifier']);
    expect(checkValueExpression('http.response.code in {401 403}', { scheme: HTTP_SCHEME, type: 'Bool' }).diagnostics).toEqual([]);
    expect(checkValueExpression('to_string(cf.bot_management.score)', { scheme: HTTP_SCHEME }).diagnostics).toEqual([]);
  });
  it('are checked in rulesets: rewrites, redirects, counting expressions, at their pointers', async () => {
    const { validateRuleset } = await import('../../src/ruleset/index.js');
    const d = validateRuleset({
      name: 'x', kind: 'zone', phase: 'http_request_transform',
      rules: [{ action: 'rewrite', expression: 'http.host eq "a"', action_parameters: { uri: { path: { expression: 'concat("/", lower(http.hots))' }, query: { expression: 'len(http.host)' } } } }],
    } as never);
    expect(d.filter((x) => x.severity === 'error').map((x) => `${x.code} ${x.pointer}`)).toEqual([
      'unknown-field /rules/0/action_parameters/uri/path/expression',
      'value-expression-type /rules/0/action_parameters/uri/query/expression',
    ]);
    const rl = validateRuleset({
      name: 'x', kind: 'zone', phase: 'http_ratelimit',
      rules: [{ action: 'block', expression: 'http.host eq "a"', ratelimit: { period: 60, counting_expression: 'regex_replace(http.host, "a", "b")' } }],
    } as never);
    expect(rl.filter((x) => x.severity === 'error').map((x) => `${x.code} ${x.pointer}`)).toEqual(['not-boolean /rules/0/ratelimit/counting_expression']);
  });
});

describe('other back ends refuse what they cannot translate, with a diagnostic', () => {
  it('SQL: functions and indexing have no SQL form; true is TRUE', async () => {
    const { expressionToSql } = await import('../../src/sql/index.js');
    for (const e of ['lower(http.host) == "a"', 'any(http.request.headers.names[*] == "a")', 'http.request.headers["a"][0] == "b"']) {
      const r = expressionToSql(e, { scheme: HTTP_SCHEME });
      expect(r.sql, e).toBeUndefined();
      expect(r.diagnostics.map((d) => d.code), e).toContain('sql-no-exact-form');
    }
    expect(expressionToSql('true').sql).toBe('TRUE');
  });
  it('Wireshark: functions have no equivalent; true is frame', async () => {
    const { toWireshark } = await import('../../src/export/index.js');
    expect(toWireshark('true').filter).toBe('frame');
    expect(toWireshark('lower(http.host) == "a"', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['no-wireshark-equivalent']);
  });
});

describe('map keys', () => {
  it('header names in upper case never match: a warning with the lower-case fix', () => {
    const r = compileExpression('http.request.headers["Content-Type"][0] == "a"', { scheme: HTTP_SCHEME });
    expect(r.diagnostics.map((d) => `${d.code}:${d.severity}`)).toEqual(['uppercase-map-key:warning']);
    expect(r.diagnostics[0]!.fix!.edits[0]!.newText).toBe('"content-type"');
    expect(compileExpression('http.request.uri.args["Q"][0] == "a"', { scheme: HTTP_SCHEME }).diagnostics).toEqual([]);
  });
  it('a key named __proto__ reads the Map, never an object property', () => {
    const r = compileExpression('http.request.headers["__proto__"][0] == "x"', { scheme: HTTP_SCHEME });
    expect(r.matcher!({ 'http.request.headers': new Map([['__proto__', ['x']]]) })).toBe(true);
    expect(r.matcher!({ 'http.request.headers': { __proto__: ['x'] } })).toBe(false);
  });
});

describe('phase-only functions in rulesets', () => {
  it('are allowed in their phases and refused in others, whatever was checked before (the check cache keys the phase)', async () => {
    const { validateRuleset } = await import('../../src/ruleset/index.js');
    const rule = { action: 'block', expression: 'cidr(ip.src, 24, 64) == 192.0.2.0' };
    const ok = validateRuleset({ name: 'x', kind: 'zone', phase: 'http_request_firewall_custom', rules: [rule] } as never);
    expect(ok.filter((d) => d.severity === 'error')).toEqual([]);
    const bad = validateRuleset({ name: 'x', kind: 'zone', phase: 'http_request_sbfm', rules: [rule] } as never);
    expect(bad.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual(['function-context']);
  });
});

describe('lower and upper change ASCII letters only', () => {
  it('as a byte-wise ASCII mapping does, on any text', async () => {
    const { lower, upper } = await import('../../src/expression/function-runtime.js');
    const text = fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.constantFrom(0xc4, 0xe4, 0x130, 0x131, 0x212a, 0xdf)), { maxLength: 10 }).map((c) => String.fromCharCode(...c));
    fc.assert(
      fc.property(text, (s) => {
        expect(lower(s)).toBe(s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)));
        expect(upper(s)).toBe(s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 32)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('records built by src/http (the shared contract)', () => {
  it('functions, indexing and any() decide a simulation of requests', async () => {
    const { simulateRequests } = await import('../../src/http/index.js');
    const ruleset = {
      name: 'waf', kind: 'zone', phase: 'http_request_firewall_custom',
      rules: [
        { action: 'block', expression: 'any(lower(http.request.headers.names[*])[*] == "x-debug")' },
        { action: 'block', expression: 'http.request.headers["user-agent"][0] contains "curl" and starts_with(http.request.uri.path, "/api/")' },
        { action: 'log', expression: 'all(http.request.headers["accept"][*] == "*/*") and len(http.request.headers.names) > 1' },
      ],
    } as never;
    const r = simulateRequests(ruleset, [
      { method: 'GET', url: 'https://example.com/', headers: [['Host', 'example.com'], ['X-Debug', '1']] },
      { method: 'GET', url: 'https://example.com/api/v1', headers: [['Host', 'example.com'], ['User-Agent', 'curl/8.5']] },
      { method: 'GET', url: 'https://example.com/api/v1', headers: [['Host', 'example.com'], ['Accept', '*/*']] },
    ]);
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(r.results.map((x) => [x.verdict, x.decidedBy?.index, x.matched])).toEqual([
      ['block', 0, [0]],
      ['block', 1, [1]],
      ['allow', undefined, [2]],
    ]);
  });
});
