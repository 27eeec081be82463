/**
 * The cache of checked expressions (src/ruleset/check-cache.ts) as its module comment promises it: each
 * distinct expression is checked once per scheme, list catalog and the options that change a check;
 * options that cannot be keyed are checked every time; at most 2000 texts per scheme and catalog, the
 * oldest going first. The calls to `checkExpression` are counted (validate-cache.test.ts holds the
 * answers to being the same as without the cache).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ texts: [] as string[] }));
vi.mock('../../src/expression/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/expression/index.js')>();
  return {
    ...real,
    checkExpression: (text: string, options: Parameters<typeof real.checkExpression>[1]) => {
      calls.texts.push(text);
      return real.checkExpression(text, options);
    },
  };
});

const { ListCatalog, RuleCache, Scheme, compileRuleset, validateRuleset } = await import('../../src/index.js');

const body = (...expressions: string[]) => ({ rules: expressions.map((expression) => ({ action: 'block', expression })) });
const update = { operation: 'update' as const };
/** A catalog of its own per test: the cache is keyed by it, so no test sees another's entries. */
const fresh = () => ListCatalog.from({ partners: ['192.0.2.0/24'] });

describe('checked expression cache', () => {
  beforeEach(() => {
    calls.texts.length = 0;
  });

  it('checks each distinct expression once across requests with the same scheme and catalog', () => {
    const lists = fresh();
    const a = 'tcp.dstport in {22 23}';
    const b = 'ip.src in $partners';
    validateRuleset(body(a, b, a), { ...update, expression: { lists } });
    validateRuleset(body(b, a), { ...update, expression: { lists } });
    expect(calls.texts).toEqual([a, b]);
    // Another catalog is another cache.
    validateRuleset(body(a), { ...update, expression: { lists: fresh() } });
    expect(calls.texts).toEqual([a, b, a]);
  });

  it('with a rule cache (a long-lived validator), keeps a check from the expression\'s second time on', () => {
    const lists = fresh();
    const ruleCache = new RuleCache();
    const a = 'tcp.dstport in {22 23}';
    const b = 'ip.src in $partners';
    validateRuleset(body(a, b), { ...update, expression: { lists }, ruleCache });
    validateRuleset(body(b, a), { ...update, expression: { lists }, ruleCache });
    expect(calls.texts).toEqual([a, b, b, a]);
    validateRuleset(body(a, b), { ...update, expression: { lists }, ruleCache });
    validateRuleset(body(a, b), { ...update, expression: { lists } });
    expect(calls.texts).toEqual([a, b, b, a]);
  });

  it('keys the service token, both limits and the parser', () => {
    const lists = fresh();
    const a = 'tcp.dstport == 80';
    const variants = [{}, { serviceToken: 'cf' }, { limits: { maxLength: 100 } }, { limits: { maxDepth: 5 } }, { limits: {} }, { parser: 'chevrotain' as const }];
    for (const v of variants) validateRuleset(body(a), { ...update, expression: { lists, ...v } });
    // `{}` and `limits: {}` read the same: one check for both.
    expect(calls.texts.length).toBe(variants.length - 1);
    for (const v of variants) validateRuleset(body(a), { ...update, expression: { lists, ...v } });
    expect(calls.texts.length).toBe(variants.length - 1);
  });

  it('caches with a Scheme instance and no lists', () => {
    const scheme = Scheme.of([{ name: 'tcp.dstport', type: 'Int', doc: '' }]);
    validateRuleset(body('tcp.dstport == 1'), { ...update, expression: { scheme } });
    validateRuleset(body('tcp.dstport == 1'), { ...update, expression: { scheme } });
    expect(calls.texts.length).toBe(1);
  });

  it('checks every time with options it cannot key, and then sees changes to them', () => {
    const lists = fresh();
    const scheme: Record<string, string> = { 'tcp.dstport': 'Int' };
    const text = 'tcp.dstport == 1 and tcp.srcport == 2';
    const first = validateRuleset(body(text), { ...update, expression: { scheme: scheme as never, lists } });
    expect(first.map((d) => d.code)).toEqual(['unknown-field']);
    scheme['tcp.srcport'] = 'Int';
    expect(validateRuleset(body(text), { ...update, expression: { scheme: scheme as never, lists } })).toEqual([]);
    expect(calls.texts.length).toBe(2);

    // Limits that are not plain data: a class instance, a non-number member.
    class Limits {
      maxLength = 1000;
    }
    const odd = [new Limits(), { maxLength: '1000' }, { maxDepth: '5' }, Object.create(null) as object, null];
    for (const [n, limits] of odd.entries()) {
      for (let i = 0; i < 2; i++) {
        const ds = validateRuleset(body('tcp.dstport == 9'), { ...update, expression: { lists, limits: limits as never } });
        expect(ds.map((d) => d.code), `limits ${n}`).not.toContain('ruleset-not-object');
      }
    }
    expect(calls.texts.length).toBe(2 + 2 * odd.length);
    // A service token or parser that is not a string.
    for (const extra of [{ serviceToken: 5 }, { parser: 1 }]) {
      validateRuleset(body('tcp.dstport == 9'), { ...update, expression: { lists, ...(extra as object) } });
      validateRuleset(body('tcp.dstport == 9'), { ...update, expression: { lists, ...(extra as object) } });
    }
    expect(calls.texts.length).toBe(2 + 2 * odd.length + 4);
  });

  it('keeps at most 2000 texts per scheme and catalog, dropping the oldest first', () => {
    const lists = fresh();
    const text = (i: number) => `tcp.dstport == ${i}`;
    const options = { ...update, expression: { lists } };
    const all = Array.from({ length: 2001 }, (_, i) => text(i));
    validateRuleset(body(...all.slice(0, 200)), options);
    for (let i = 200; i < 2001; i += 200) validateRuleset(body(...all.slice(i, i + 200)), options);
    expect(calls.texts.length).toBe(2001);
    // The second oldest and the newest are still there; the oldest went when the 2001st came.
    validateRuleset(body(text(1), text(2000)), options);
    expect(calls.texts.length).toBe(2001);
    validateRuleset(body(text(0)), options);
    expect(calls.texts.slice(2001)).toEqual([text(0)]);
    // Its return pushed out the next oldest, text(1).
    validateRuleset(body(text(2)), options);
    expect(calls.texts.length).toBe(2002);
    validateRuleset(body(text(1)), options);
    expect(calls.texts.slice(2002)).toEqual([text(1)]);
  });

  it('does not cache an expression that is not text under the text it prints as', () => {
    const lists = fresh();
    const number = compileRuleset({ rules: [{ action: 'block', expression: 5 as unknown as string }] }, { lists });
    const text = compileRuleset({ rules: [{ action: 'block', expression: '5' }] }, { lists });
    expect(calls.texts.length).toBe(2);
    expect(number.diagnostics.map((d) => d.message)).not.toEqual(text.diagnostics.map((d) => d.message));
  });
});
