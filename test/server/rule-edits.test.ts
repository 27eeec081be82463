/** Single-rule edits as lists of rules (rule-edits.ts), and the routes' answers to malformed requests. */
import { describe, expect, it } from 'vitest';
import { addRule, diagnosticsOfRule, editRule, positionOf, removeRule } from '../../src/server/rule-edits.js';
import { createServer, openSqliteStore } from '../../src/server/index.js';
import type { StoredRuleset } from '../../src/server/store/index.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { AnswerChecker } from '../helpers/checked-answers.js';

const T = '2026-01-01T00:00:00.000Z';
const rule = (id: string, extra: Record<string, unknown> = {}) => ({ id, version: '1', action: 'block', expression: `tcp.dstport == ${id.length}`, description: '', last_updated: T, ref: id, enabled: true, ...extra });
const RS: StoredRuleset = { id: 'rs', name: 'n', description: '', kind: 'custom', phase: 'network_transit', version: '1', last_updated: T, rules: [rule('a'), rule('b'), rule('c')] };
const order = (made: unknown) => (made as { rules: { id?: string; expression?: string }[] }).rules.map((r) => r.id ?? 'new');

describe('positionOf', () => {
  it.each([
    [{}, {}],
    [{ position: { before: '' } }, { position: { before: '' } }],
    [{ position: { after: 'x' } }, { position: { after: 'x' } }],
    [{ position: { index: 2 } }, { position: { index: 2 } }],
  ])('%j → %j', (body, want) => expect(positionOf(body)).toEqual(want));

  it.each([
    [{ position: 'first' }, '/position'],
    [{ position: null }, '/position'],
    [{ position: {} }, '/position'],
    [{ position: { before: '', after: '' } }, '/position'],
    [{ position: { before: 3 } }, '/position/before'],
    [{ position: { index: 0 } }, '/position/index'],
    [{ position: { index: 1.5 } }, '/position/index'],
    [{ position: { index: '2' } }, '/position/index'],
    [{ position: { top: true } }, '/position/top'],
  ])('refuses %j at %s', (body, pointer) => {
    const got = positionOf(body);
    expect(got).toHaveProperty('problem');
    expect((got as { problem: Diagnostic }).problem).toMatchObject({ code: 'server-invalid-position', pointer });
  });
});

describe('addRule, editRule, removeRule', () => {
  it('adds last by default, first, after a rule, at an index up to one past the end', () => {
    const r = { action: 'block', expression: 'true' };
    expect(order(addRule(RS, r, undefined))).toEqual(['a', 'b', 'c', 'new']);
    expect(order(addRule(RS, r, { before: '' }))).toEqual(['new', 'a', 'b', 'c']);
    expect(order(addRule(RS, r, { before: 'b' }))).toEqual(['a', 'new', 'b', 'c']);
    expect(order(addRule(RS, r, { after: 'b' }))).toEqual(['a', 'b', 'new', 'c']);
    expect(order(addRule(RS, r, { after: '' }))).toEqual(['a', 'b', 'c', 'new']);
    expect(order(addRule(RS, r, { index: 1 }))).toEqual(['new', 'a', 'b', 'c']);
    expect(order(addRule(RS, r, { index: 4 }))).toEqual(['a', 'b', 'c', 'new']);
    expect(addRule(RS, r, { index: 5 })).toHaveProperty('problem.pointer', '/position/index');
    expect(addRule(RS, r, { after: 'zz' })).toHaveProperty('problem.pointer', '/position/after');
    expect((addRule(RS, r, { index: 2 }) as { index: number }).index).toBe(1);
  });

  it('a new rule’s assigned members and its position are not part of it; the others are sent back with their ids', () => {
    const made = addRule(RS, { id: 'mine', version: '9', last_updated: 'x', action: 'block', expression: 'true', position: { index: 1 } }, { index: 1 }) as { rules: Record<string, unknown>[] };
    expect(made.rules[0]).toEqual({ action: 'block', expression: 'true' });
    expect(made.rules[1]).toEqual({ id: 'a', action: 'block', expression: 'tcp.dstport == 1', description: '', ref: 'a', enabled: true });
  });

  it('edits: the members given replace, a new action drops the old parameters, the position moves it', () => {
    const rs = { ...RS, rules: [rule('a', { action: 'skip', action_parameters: { ruleset: 'current' } }), rule('b'), rule('c')] };
    const kept = editRule(rs, 'a', { description: 'd' }, undefined) as { rules: Record<string, unknown>[]; index: number };
    expect(kept.index).toBe(0);
    expect(kept.rules[0]).toMatchObject({ id: 'a', action: 'skip', action_parameters: { ruleset: 'current' }, description: 'd' });
    const changed = editRule(rs, 'a', { action: 'block' }, undefined) as { rules: Record<string, unknown>[] };
    expect(changed.rules[0]).not.toHaveProperty('action_parameters');
    expect(order(editRule(rs, 'a', {}, { index: 3 }))).toEqual(['b', 'c', 'a']);
    expect(order(editRule(rs, 'c', {}, { before: '' }))).toEqual(['c', 'a', 'b']);
    expect(order(editRule(rs, 'a', {}, { after: 'b' }))).toEqual(['b', 'a', 'c']);
    expect(editRule(rs, 'a', {}, { index: 4 })).toHaveProperty('problem.pointer', '/position/index');
    expect(editRule(rs, 'a', {}, { after: 'a' })).toHaveProperty('problem.message', 'a rule cannot be placed after itself');
    expect(editRule(rs, 'zz', {}, undefined)).toBeUndefined();
    expect(removeRule(rs, 'b')?.map((r) => r['id'])).toEqual(['a', 'c']);
    expect(removeRule(rs, 'zz')).toBeUndefined();
  });
});

describe('diagnosticsOfRule', () => {
  const rules = [{ id: 'a', ref: 'x' }, { ref: 'x' }];
  it('moves the request rule’s diagnostics to its body, the errors of others to the body with their rule named', () => {
    const d = (code: string, pointer: string, severity: Diagnostic['severity'] = 'error'): Diagnostic => ({ code, severity, message: 'm', pointer, range: { start: 0, end: 1 } });
    const got = diagnosticsOfRule([
      d('unexpected-end', '/rules/1/expression'),
      { ...d('unexpected-end', '/rules/1/expression'), rangeIn: 'value' },
      d('ruleset-unknown-member', '/rules/1/x', 'warning'),
      d('ruleset-read-only-member', '/rules/0/id', 'warning'),
      d('ruleset-duplicate-ref', '/rules/0/ref'),
      d('some-error', '/rules/0/expression'),
      d('ruleset-too-many-rules', '/rules'),
    ], 1, rules);
    expect(got).toEqual([
      { code: 'unexpected-end', severity: 'error', message: 'm', pointer: '/expression' },
      { code: 'unexpected-end', severity: 'error', message: 'm', pointer: '/expression', range: { start: 0, end: 1 }, rangeIn: 'value' },
      { code: 'ruleset-unknown-member', severity: 'warning', message: 'm', pointer: '/x' },
      { code: 'ruleset-duplicate-ref', severity: 'error', message: 'another rule of this ruleset (a) has the ref "x"; refs are unique in a ruleset', pointer: '/ref' },
      { code: 'some-error', severity: 'error', message: 'with this rule, rule 1 of the ruleset (a): m', pointer: '' },
      { code: 'ruleset-too-many-rules', severity: 'error', message: 'm', pointer: '' },
    ]);
  });
});

describe('single-rule and version routes refuse malformed requests', () => {
  it('answers each in the envelope with its status and code, and writes nothing', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    const app = await createServer({ users: [{ email: 'e@example.com', key: 'rule-edits-key', accounts: ['a1'], zones: [] }], store });
    const auth = { 'x-auth-email': 'e@example.com', 'x-auth-key': 'rule-edits-key', 'content-type': 'application/json' };
    const base = '/client/v4/accounts/a1/rulesets';
    const answers = new AnswerChecker();
    try {
      const created = JSON.parse((await answers.inject(app, { method: 'POST', url: base, headers: auth, payload: { name: 'n', kind: 'custom', phase: 'network_transit', rules: [{ action: 'block', expression: 'true' }] } })).body);
      const id = created.result.id as string;
      const ruleId = created.result.rules[0].id as string;
      const cases: [string, string, unknown, number, string][] = [
        ['POST', `${base}/${id}/rules`, [1, 2], 400, 'server-invalid-parameter'],
        ['POST', `${base}/${id}/rules`, 'rule', 400, 'server-invalid-parameter'],
        ['POST', `${base}/${id}/rules`, { action: 'block', expression: 'true', position: { index: 1e300 } }, 400, 'server-invalid-position'],
        ['POST', `${base}/${id}/rules`, { raw: '{"action": "block", "expression": "true", "__proto__": {"x": 1}}' }, 400, 'ruleset-unknown-member'],
        ['POST', `${base}/${id}/rules`, { expression: 'true' }, 400, 'ruleset-missing-member'],
        ['POST', `${base}/${id}/rules`, undefined, 400, 'server-missing-body'],
        ['PATCH', `${base}/${id}/rules/${ruleId}`, { enabled: 'no' }, 400, 'ruleset-member-type'],
        ['PATCH', `${base}/${id}/rules/${ruleId}?dry_run=maybe`, {}, 400, 'server-invalid-parameter'],
        ['GET', `${base}/${id}/versions/0`, undefined, 404, 'server-version-not-found'],
        ['GET', `${base}/${id}/versions/99999999999999999999`, undefined, 404, 'server-version-not-found'],
        ['DELETE', `${base}/${id}/versions/-1`, undefined, 404, 'server-version-not-found'],
        ['DELETE', `${base}/${id}/versions/1`, undefined, 400, 'server-current-version'],
        ['GET', `${base}/phases/__proto__/entrypoint`, undefined, 400, 'server-unknown-phase'],
        ['PUT', `${base}/phases/network_transit/entrypoint`, { rules: 'none' }, 400, 'ruleset-member-type'],
        ['PUT', `${base}/phases/network_transit/entrypoint`, { phase: 'magic_transit', rules: [] }, 400, 'server-immutable-member'],
      ];
      const isRaw = (x: unknown): x is { raw: string } => typeof x === 'object' && x !== null && 'raw' in x;
      for (const [method, url, payload, status, code] of cases) {
        const res = await answers.inject(app, { method: method as 'GET', url, headers: auth, ...(payload === undefined ? {} : { payload: isRaw(payload) ? payload.raw : JSON.stringify(payload) }) });
        const what = `${method} ${url} ${JSON.stringify(payload)}`;
        expect(res.statusCode, what).toBe(status);
        const body = JSON.parse(res.body);
        expect(body.success, what).toBe(false);
        expect(body.errors.map((e: { meta: { code: string } }) => e.meta.code), what).toContain(code);
      }
      const after = JSON.parse((await answers.inject(app, { method: 'GET', url: `${base}/${id}`, headers: auth })).body);
      expect(after.result).toEqual(created.result);
      const entry = await answers.inject(app, { method: 'GET', url: `${base}/phases/network_transit/entrypoint`, headers: auth });
      expect(entry.statusCode).toBe(404);
      answers.expectConforming();
    } finally {
      await app.close();
      await store.close();
    }
  });
});
