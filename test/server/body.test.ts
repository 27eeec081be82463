/** Bodies: the checks before any validator, and when the parsed value is enough to validate. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import { parseBody, ParseMemo, readBodyBytes, scanText, textMatters, ValidationMemo, type ParsedBody } from '../../src/server/body.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { scanDepth } from '../../src/json/index.js';
import { toEnvelope } from '../../src/ruleset/index.js';

const parsed = (text: string) => parseBody(Buffer.from(text)) as ParsedBody;

describe('textMatters', () => {
  it('is true exactly when the text holds a key twice in one object, or a surrogate escape', () => {
    expect(textMatters(parsed('{"a":1,"b":{"c":[{"d":":"}]}}'))).toBe(false);
    expect(textMatters(parsed('{"a":1,"a":2}'))).toBe(true);
    expect(textMatters(parsed('{"x":[{"k":1,"k":1}]}'))).toBe(true);
    expect(textMatters(parsed('{"s":"\\ud800"}'))).toBe(true);
    expect(textMatters(parsed('{"s":"\\\\\\"a:b\\""}'))).toBe(false);
    expect(textMatters(parsed('{"__proto__":{"x":1}}'))).toBe(false);
  });

  it('agrees with a duplicate-key check on generated objects', () => {
    const key = fc.constantFrom('a', 'b', ':', '"', '\\', '__proto__', 'c:d');
    const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 0 }), fc.array(tie('v'), { maxLength: 3 }), fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((m) => ({ members: m }))),
    })).v as fc.Arbitrary<unknown>;
    const write = (v: unknown): string => {
      if (v && typeof v === 'object' && 'members' in (v as object)) return `{${((v as { members: [string, unknown][] }).members).map(([k, x]) => `${JSON.stringify(k)}:${write(x)}`).join(',')}}`;
      if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
      return JSON.stringify(v) ?? 'null';
    };
    const dup = (v: unknown): boolean => {
      if (v && typeof v === 'object' && 'members' in (v as object)) {
        const m = (v as { members: [string, unknown][] }).members;
        return new Set(m.map(([k]) => k)).size !== m.length || m.some(([, x]) => dup(x));
      }
      return Array.isArray(v) && v.some(dup);
    };
    fc.assert(fc.property(json, (v) => {
      const text = write(v);
      // A surrogate escape: \u after an odd run of backslashes (an even run is escaped backslashes).
      expect(textMatters(parsed(text))).toBe(dup(v) || /(^|[^\\])(\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}/.test(text));
    }), { numRuns: 500 });
  });
});

describe('scanText', () => {
  it('finds what the separate scans found: nesting past the limit as scanDepth, blank as JSON whitespace only', () => {
    const text = fc.stringMatching(/^[\s{}[\]":,\\ua-f0-9DF]*$/);
    fc.assert(fc.property(fc.oneof(text, fc.json()), fc.integer({ min: 0, max: 6 }), (t, max) => {
      const scan = scanText(t, max);
      expect(scan.tooDeep).toBe(scanDepth(t, max) !== undefined);
      if (!scan.tooDeep) expect(scan.blank).toBe(/^[ \t\r\n]*$/.test(t));
    }), { numRuns: 2000 });
  });

  it('tells a surrogate escape from an escaped backslash before "ud800"', () => {
    expect(scanText('{"s":"\\ud800"}', 64).surrogateEscape).toBe(true);
    expect(scanText('{"s":"\\uDFFF"}', 64).surrogateEscape).toBe(true);
    expect(scanText('{"s":"\\\\ud800"}', 64).surrogateEscape).toBe(false);
    expect(scanText('{"s":"\\u00e9\\ud7ff"}', 64).surrogateEscape).toBe(false);
    expect(scanText('{"a":1,"b":{"c":":"}}', 64).members).toBe(3);
  });
});

describe('ValidationMemo', () => {
  it('validates a text once per kind, answers each call its own array of the same (frozen) diagnostics, keeps the most recent', () => {
    const memo = new ValidationMemo(2, 100);
    let calls = 0;
    const validate = (input: unknown): Diagnostic[] => {
      calls++;
      return [{ code: 'x', severity: 'info', message: JSON.stringify(input), range: { start: 0, end: 1 } }];
    };
    const a = parsed('{"a":1}');
    const first = memo.validate(a, 'k1', validate);
    const again = memo.validate(parsed('{"a":1}'), 'k1', validate);
    expect(calls).toBe(1);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    again.push({ code: 'y', severity: 'info', message: '' });
    expect(memo.validate(a, 'k1', validate)).toHaveLength(1);
    expect(() => {
      (first[0]!.range as { start: number }).start = 5;
    }).toThrow(TypeError);
    memo.validate(a, 'k2', validate);
    expect(calls).toBe(2);
    memo.validate(parsed('{"b":1}'), 'k1', validate);
    memo.validate(a, 'k1', validate);
    expect(calls).toBe(4);
    memo.validate(parsed(`{"long":"${'x'.repeat(100)}"}`), 'k1', validate);
    memo.validate(parsed(`{"long":"${'x'.repeat(100)}"}`), 'k1', validate);
    expect(calls).toBe(6);
  });

  it('keeps the text of a validation’s messages with its diagnostics', () => {
    const memo = new ValidationMemo();
    const validate = (): Diagnostic[] => [{ code: 'x', severity: 'info', message: 'note' }, { code: 'y', severity: 'warning', message: 'mind' }];
    const v = memo.validation(parsed('{"a":1}'), 'k', validate);
    expect(memo.validation(parsed('{"a":1}'), 'k', validate)).toBe(v);
    expect(v.messagesJson).toBe(JSON.stringify(toEnvelope(null, validate()).messages));
    expect(v.messagesJson).toBe(memo.validation(parsed('{"a":1}'), 'k', validate).messagesJson);
  });
});

describe('ParseMemo', () => {
  it('answers what parseBody answers, the same frozen body for the same text from its second sight, keeping the most recent', () => {
    const memo = new ParseMemo(2, 100);
    const text = '{"rules":[{"action":"block","action_parameters":{"x":[1]}}]}';
    // First sight: parsed, not frozen (a body that never repeats is not worth freezing).
    const once = memo.parse(Buffer.from(text)) as ParsedBody;
    expect(once).toEqual(parseBody(Buffer.from(text)));
    expect(Object.isFrozen(once.value)).toBe(false);
    const first = memo.parse(Buffer.from(text)) as ParsedBody;
    expect(first).toEqual(parseBody(Buffer.from(text)));
    expect(first).not.toBe(once);
    expect(memo.parse(Buffer.from(text))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const rule = (first.value as { rules: { action_parameters: { x: number[] } }[] }).rules[0]!;
    expect(() => {
      rule.action_parameters.x.push(2);
    }).toThrow(TypeError);
    memo.parse(Buffer.from('{"b":1}'));
    memo.parse(Buffer.from('{"c":1}'));
    // Forgotten: a first sight again.
    expect(Object.isFrozen((memo.parse(Buffer.from(text)) as ParsedBody).value)).toBe(false);
    expect(memo.parse(Buffer.from(text))).not.toBe(first);
    // Over the size limit: parsed each time, not kept, not frozen.
    const long = `{"long":"${'x'.repeat(100)}"}`;
    const a = memo.parse(Buffer.from(long)) as ParsedBody;
    expect(a).not.toBe(memo.parse(Buffer.from(long)));
    expect(Object.isFrozen(a.value)).toBe(false);
  });

  it('tells apart bodies of one length that differ only in bytes its hash does not sample', () => {
    const memo = new ParseMemo();
    const base = `{"s":"${'x'.repeat(1000)}"}`;
    // 1008 bytes: the hash samples every third byte from 0; bytes 7, 8, 10, 11, … are never looked at.
    const variants = [base, ...[7, 8, 500, 1001].map((i) => base.slice(0, i) + 'y' + base.slice(i + 1))];
    for (let round = 0; round < 2; round++) {
      for (const text of variants) expect((memo.parse(Buffer.from(text)) as ParsedBody).value).toEqual(JSON.parse(text));
    }
    // Inside the string: bytes 6 to 1005.
    fc.assert(fc.property(fc.array(fc.integer({ min: 6, max: 1005 }), { minLength: 1, maxLength: 8 }), (at) => {
      const text = at.reduce((t, i) => t.slice(0, i) + 'z' + t.slice(i + 1), base);
      const got = memo.parse(Buffer.from(text)) as ParsedBody;
      expect(got.text).toBe(text);
      expect(got.value).toEqual(JSON.parse(text));
    }), { numRuns: 300 });
  });

  it('answers the same diagnostics as parseBody for bodies that do not parse, and keeps none of them', () => {
    const memo = new ParseMemo();
    const bad = [Buffer.from('{"a":'), Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from('   '), Buffer.from('['.repeat(70))];
    fc.assert(fc.property(fc.oneof(fc.constantFrom(...bad), fc.uint8Array({ maxLength: 12 }).map((a) => Buffer.from(a)), fc.json().map((t) => Buffer.from(t))), (bytes) => {
      expect(memo.parse(bytes)).toEqual(parseBody(bytes));
      expect(memo.parse(bytes)).toEqual(parseBody(bytes));
    }), { numRuns: 500 });
  });
});

describe('readBodyBytes', () => {
  const read = (chunks: (Buffer | Error)[], limit: number, declared: number) => new Promise<{ failure: unknown; bytes?: Buffer }>((resolve) => {
    const s = new PassThrough();
    readBodyBytes(s, limit, declared, (failure, bytes) => resolve({ failure, bytes }));
    for (const c of chunks) {
      if (c instanceof Error) s.destroy(c);
      else s.write(c);
    }
    if (!chunks.some((c) => c instanceof Error)) s.end();
  });

  it('hands on a body of one chunk as that chunk, and joins several', async () => {
    const one = Buffer.from('{"a":1}');
    const got = await read([one], 100, one.length);
    expect(got.failure).toBeUndefined();
    expect(got.bytes).toBe(one);
    const parts = await read([Buffer.from('{"a":'), Buffer.from('1'), Buffer.from('}')], 100, 7);
    expect(parts.bytes!.toString()).toBe('{"a":1}');
    expect((await read([Buffer.from('{}')], 100, NaN)).bytes!.toString()).toBe('{}');
    expect((await read([], 100, 0)).bytes!.length).toBe(0);
  });

  it('refuses a body over the limit, declared or received, and one unlike its Content-Length', async () => {
    expect((await read([Buffer.from('{}')], 10, 11)).failure).toBe('too-large');
    expect((await read([Buffer.alloc(6), Buffer.alloc(6)], 10, NaN)).failure).toBe('too-large');
    expect((await read([Buffer.alloc(10)], 10, NaN)).failure).toBeUndefined();
    expect((await read([Buffer.from('{}')], 10, 3)).failure).toBe('length-mismatch');
    expect((await read([Buffer.from('{}  ')], 10, 2)).failure).toBe('length-mismatch');
  });

  it('passes a stream error on', async () => {
    const e = new Error('aborted');
    expect((await read([Buffer.from('{'), e], 10, 5)).failure).toBe(e);
  });
});
