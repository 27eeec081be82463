/**
 * Ruleset bodies given as JSON text: lone surrogates held to JavaScript's own judgement of a string
 * (`String.prototype.isWellFormed`: a string without a UTF-8 encoding) on the parsed value, and the
 * messages of the structural diagnostics a client reads (the server sends them as they are).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRuleset } from '../../src/index.js';

const update = { operation: 'update' as const };
/** The escape `\uXXXX` of one UTF-16 code unit. */
const esc = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;
/** `String.prototype.isWellFormed` (Node 20; the project's TypeScript lib predates it). */
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();
const surrogates = (text: string) => validateRuleset(text, update).filter((d) => d.code === 'lone-surrogate');

describe('lone surrogates in JSON text', () => {
  /** A piece of a JSON string: a plain character, an escaped backslash, a BMP escape, a surrogate escape or a raw surrogate. */
  const piece = fc.oneof(
    fc.constantFrom('a', 'é', '\\\\', '\\n', '\\\\u', '\\"'),
    fc.integer({ min: 0, max: 0xffff }).map(esc),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => (u % 3 === 0 ? esc(u).toUpperCase().replace('\\U', '\\u') : esc(u))),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
    fc.constant('😀'),
  );

  it('reported exactly when the parsed string has no UTF-8 encoding, at the escape that is alone', () => {
    let withSurrogates = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        runs++;
        const content = pieces.join('');
        const text = `{"rules":[],"description":"${content}"}`;
        const value = (JSON.parse(text) as { description: string }).description;
        const found = surrogates(text);
        expect(found.length > 0, content).toBe(!isWellFormed(value));
        if (found.length) withSurrogates++;
        for (const d of found) {
          expect(d.severity).toBe('error');
          expect(d.pointer).toBe('');
          const span = text.slice(d.range!.start, d.range!.end);
          // Each reported span is one surrogate: an escape of one, or the raw unit.
          const unit = span.length === 1 ? span.charCodeAt(0) : parseInt(span.slice(2), 16);
          expect(span.length === 1 || /^\\u[0-9a-fA-F]{4}$/.test(span), span).toBe(true);
          expect(unit >= 0xd800 && unit <= 0xdfff, span).toBe(true);
          expect(d.message).toBe(`${span} is half of a UTF-16 surrogate pair without its other half; the string cannot be encoded as UTF-8`);
        }
        // The number found is the number of lone units in the value (up to 10).
        let lone = 0;
        for (let i = 0; i < value.length; i++) {
          const c = value.charCodeAt(i);
          if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length && value.charCodeAt(i + 1) >= 0xdc00 && value.charCodeAt(i + 1) <= 0xdfff) i++;
          else if (c >= 0xd800 && c <= 0xdfff) lone++;
        }
        expect(found.length).toBe(Math.min(lone, 10));
      }),
      { numRuns: 3000 },
    );
    // Under mutation testing the property runs fewer times (test/mutation/fast-check-scaled.ts): count a share.
    expect(withSurrogates, `runs of ${runs} that reached a lone surrogate`).toBeGreaterThan(runs / 4);
  });

  it('pairs written as two escapes, in either case, are one character; reversed ones are two lone halves', () => {
    expect(surrogates('{"rules":[],"description":"\\ud83d\\ude00"}')).toEqual([]);
    expect(surrogates('{"rules":[],"description":"\\uD83D\\uDE00"}')).toEqual([]);
    // The first low half, U+DC00, right after the first high half, U+D800: one character.
    expect(surrogates('{"rules":[],"description":"\\ud800\\udc00"}')).toEqual([]);
    expect(surrogates('{"rules":[],"description":"\\udc00"}').length).toBe(1);
    const reversed = '{"rules":[],"description":"\\ude00\\ud83d"}';
    expect(surrogates(reversed).map((d) => reversed.slice(d.range!.start, d.range!.end))).toEqual(['\\ude00', '\\ud83d']);
    const escaped = '{"rules":[],"description":"\\\\ud800"}';
    expect(surrogates(escaped)).toEqual([]);
    const afterEscapedBackslash = '{"rules":[],"description":"\\\\\\ud800"}';
    expect(surrogates(afterEscapedBackslash).map((d) => [d.range!.start, d.range!.end])).toEqual([[afterEscapedBackslash.indexOf('\\ud800'), afterEscapedBackslash.indexOf('\\ud800') + 6]]);
    // A low half right after a high half that is itself an escaped text is alone.
    const fake = '{"rules":[],"description":"\\\\ud83d\\ude00"}';
    expect(surrogates(fake).length).toBe(1);
  });

  it('reports at most 10', () => {
    expect(surrogates(`{"rules":[],"description":"${esc(0xd800).repeat(25)}"}`).length).toBe(10);
    expect(surrogates(`{"rules":[],"description":"${esc(0xdc00).repeat(10)}"}`).length).toBe(10);
    expect(surrogates(`{"rules":[],"description":"${esc(0xdc00).repeat(9)}"}`).length).toBe(9);
  });
});

describe('structural messages', () => {
  const one = (body: unknown, context = {}) => validateRuleset(body, context).map((d) => [d.code, d.pointer, d.message]);
  const rules = (...rs: unknown[]) => ({ rules: rs });

  it('describes the value a body or member had instead', () => {
    expect(one(null)).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not null']]);
    expect(one([1])).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not an array']]);
    expect(one('"x"')).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not the string "x"']]);
    expect(one(undefined)).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not undefined (no body)']]);
    expect(one(5)).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not the number 5']]);
    expect(one(true)).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not the boolean true']]);
    expect(one(() => 1)).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not a function']]);
    expect(one(Symbol('s'))).toEqual([['ruleset-not-object', '', 'the ruleset body must be a JSON object, not a symbol']]);
    expect(one({ rules: [], name: 'x'.repeat(41), description: 5 }, update)).toEqual([['ruleset-member-type', '/description', '"description" of a ruleset must be a string, not the number 5']]);
    expect(one({ rules: [], description: 'x'.repeat(41), name: ['a'] }, update)).toEqual([['ruleset-member-type', '/name', '"name" of a ruleset must be a string, not an array']]);
    expect(one({ rules: 'x'.repeat(41) }, update)).toEqual([['ruleset-member-type', '/rules', '"rules" of a ruleset must be an array, not a string of 41 characters']]);
    expect(one({ rules: 'x'.repeat(40) }, update)).toEqual([['ruleset-member-type', '/rules', `"rules" of a ruleset must be an array, not the string "${'x'.repeat(40)}"`]]);
    expect(one(rules({ action: 'block', expression: 'sip', action_parameters: 'x' }), update)).toContainEqual(['ruleset-member-type', '/rules/0/action_parameters', '"action_parameters" of a rule must be an object, not the string "x"']);
    expect(one(rules({ action: 'block', expression: 'sip', enabled: null }), update)).toEqual([['ruleset-member-type', '/rules/0/enabled', '"enabled" of a rule must be a boolean, not null']]);
    expect(one(rules({ action: 'block', expression: 'sip', enabled: {} }), update)).toEqual([['ruleset-member-type', '/rules/0/enabled', '"enabled" of a rule must be a boolean, not an object']]);
  });

  it('names what is missing or unknown, with a suggestion when one is close', () => {
    expect(one(rules({ expression: 'sip' }), update)).toEqual([['ruleset-missing-member', '/rules/0', 'a rule needs an "action" (skip, block or log_custom_field)']]);
    expect(one(rules({ action: 'block' }), update)).toEqual([['ruleset-missing-member', '/rules/0', 'a rule needs an "expression"']]);
    expect(validateRuleset(rules({ action: 'block' }), update)[0]!.data).toEqual({ member: 'expression' });
    expect(validateRuleset(rules({ expression: 'sip' }), update)[0]!.data).toEqual({ member: 'action' });
    expect(one({ name: 'a', kind: 'root', phase: 'network_transit', rules: [], descripton: 'x' })).toEqual([['ruleset-unknown-member', '/descripton', 'a ruleset has no member "descripton"; did you mean "description"?']]);
    expect(validateRuleset({ name: 'a', kind: 'root', phase: 'network_transit', descripton: 'x' })[0]!.data).toEqual({ suggestion: 'description' });
    expect(one({ name: 'a', kind: 'root', phase: 'network_transit', zzzzzzzz: 1 })).toEqual([['ruleset-unknown-member', '/zzzzzzzz', 'a ruleset has no member "zzzzzzzz"']]);
    expect(validateRuleset({ name: 'a', kind: 'root', phase: 'network_transit', zzzzzzzz: 1 })[0]!.data).toBeUndefined();
    expect(one({ name: 'a', kind: 'zon', phase: 'network_transit' })).toEqual([['ruleset-unknown-kind', '/kind', 'unknown kind "zon"; kinds are root, zone, custom and managed (did you mean zone?)']]);
    expect(one({ name: 'a', kind: 'qqqqqq', phase: 'network_transit' })).toEqual([['ruleset-unknown-kind', '/kind', 'unknown kind "qqqqqq"; kinds are root, zone, custom and managed']]);
    expect(one({ name: 'a', kind: 'rot', phase: 'network_transit' })[0]![2]).toBe('unknown kind "rot"; kinds are root, zone, custom and managed (did you mean root?)');
    expect(one({ name: 'a', kind: 'zone', phase: 'network_transit' })[0]!.slice(0, 3)).toEqual(['ruleset-phase-kind', '/kind', 'phase network_transit goes with kind "root", not "zone"']);
    expect(one({ name: 'a', kind: 'root', phase: 'network_transit' }, { scope: 'zone' })).toEqual([['ruleset-scope', '/phase', 'phase network_transit is an account-level phase; it cannot be created at the zone level']]);
    expect(one({ name: 'a', kind: 'zone', phase: 'http_log_custom_fields' }, { scope: 'account' })).toEqual([['ruleset-scope', '/phase', 'phase http_log_custom_fields is a zone-level phase; it cannot be created at the account level']]);
    const unknownPhase = one({ name: 'a', kind: 'root', phase: 'network_transitt' })[0]!;
    expect(unknownPhase[2]).toMatch(/^unknown phase "network_transitt"; phases are .*network_transit.* \(did you mean network_transit\?\)$/);
    expect(one({ name: 'a', kind: 'root', phase: 'qqqqqqqqqqqq' })[0]![2]).not.toContain('did you mean');
    expect(one(rules({ action: 'blokc', expression: 'sip' }), update)[0]![2]).toMatch(/^unknown action "blokc"; actions are .*block.* \(did you mean block\?\)$/);
    expect(one(rules({ action: 'qqqqqqqq', expression: 'sip' }), update)[0]![2]).not.toContain('did you mean');
    expect(one(rules({ action: 'block', expression: 'sip' }, { action: 'block', expression: 'sip' }), { ...update, maxRules: 1 })).toEqual([['ruleset-too-many-rules', '/rules', 'the ruleset has 2 rules; the limit is 1 (its rules were not checked)']]);
    expect(validateRuleset(rules({ action: 'block', expression: 'sip' }, { action: 'block', expression: 'sip' }), { ...update, maxRules: 1 })[0]!.data).toEqual({ limit: 1, count: 2 });
  });

  it('action parameters and actions of another phase', () => {
    const skip = (p: unknown) => one(rules({ action: 'skip', expression: 'sip', action_parameters: p }), update);
    expect(one(rules({ action: 'skip', expression: 'sip' }), update)).toEqual([['rule-action-parameters', '/rules/0', 'skip needs action_parameters {"ruleset": "current"}']]);
    expect(skip({})).toEqual([['rule-action-parameters', '/rules/0/action_parameters', 'skip needs "ruleset" in action_parameters ("current" skips the rest of this ruleset)']]);
    expect(skip({ ruleset: 5 })).toEqual([['rule-action-parameters', '/rules/0/action_parameters/ruleset', '"ruleset" must be a string, not the number 5']]);
    expect(skip({ ruleset: 'other' })).toEqual([['rule-skip-target', '/rules/0/action_parameters/ruleset', 'skip "ruleset": "other" — only "current" (skip the remaining rules of this ruleset) is described']]);
    expect(skip({ ruleset: 'current', rulesets: 1 })).toEqual([['rule-action-parameters', '/rules/0/action_parameters/rulesets', 'skip\'s action_parameters have no "rulesets"; did you mean "ruleset"?']]);
    expect(skip({ ruleset: 'current', qqqqqqqqqq: 1 })).toEqual([['rule-action-parameters', '/rules/0/action_parameters/qqqqqqqqqq', 'skip\'s action_parameters have no "qqqqqqqqqq"']]);
    expect(one(rules({ action: 'block', expression: 'sip', action_parameters: {} }), update)).toEqual([]);
    expect(one(rules({ action: 'block', expression: 'sip', action_parameters: { a: 1 } }), update)).toEqual([['rule-action-parameters', '/rules/0/action_parameters', 'block takes no action_parameters']]);
    const wrongPhase = one(rules({ action: 'log_custom_field', expression: 'true' }), { ...update, phase: 'network_transit' });
    expect(wrongPhase[0]![0]).toBe('rule-action-phase');
    expect(wrongPhase[0]![2]).toMatch(/^action log_custom_field is not an action of the network_transit phase; its actions are /);
    // Action parameters of an HTTP phase: their shape in the catalog (required members and JSON types are
    // errors, unknown members warnings); their values are not checked, said once for the first rule.
    const http = validateRuleset(
      rules(
        { action: 'block', expression: 'true', action_parameters: { response: {} } },
        { action: 'block', expression: 'true', action_parameters: { x: 1 } },
        { action: 'block', expression: 'true', action_parameters: { respnse: 1 } },
        { action: 'block', expression: 'true', action_parameters: { response: { status_code: '403', content: 'x', content_type: 'text/plain' } } },
      ),
      { ...update, phase: 'http_request_firewall_custom' },
    ).filter((d) => d.code !== 'matches-everything');
    expect(http.map((d) => [d.code, d.severity, d.pointer, d.message])).toEqual([
      ['rule-action-parameters', 'error', '/rules/0/action_parameters/response', '"response" of block\'s action_parameters needs "status_code", "content" and "content_type"'],
      ['rule-action-parameters-not-checked', 'info', '/rules/0/action_parameters', 'the action_parameters of block in the http_request_firewall_custom phase are checked for their members and JSON types, not yet for their values, apart from their value expressions (nor those of the rules after this one)'],
      ['rule-action-parameter-unknown', 'warning', '/rules/1/action_parameters/x', 'block\'s action_parameters have no "x" (its members are response). The API may be ahead of rulekit\'s schema: a warning, not an error'],
      ['rule-action-parameter-unknown', 'warning', '/rules/2/action_parameters/respnse', 'block\'s action_parameters have no "respnse"; did you mean "response"? The API may be ahead of rulekit\'s schema: a warning, not an error'],
      ['rule-action-parameters', 'error', '/rules/3/action_parameters/response/status_code', '"response.status_code" of block\'s action_parameters must be an integer, not the string "403"'],
    ]);
    // A required member of an action with no action_parameters at all: at the rule.
    expect(one(rules({ action: 'execute', expression: 'true' }), { ...update, phase: 'http_request_firewall_custom' }).filter((d) => d[0] !== 'matches-everything')).toEqual([['rule-action-parameters', '/rules/0', 'execute needs action_parameters with "id"']]);
  });

  it('custom field rules get ranges in the JSON text', () => {
    const text = JSON.stringify({ rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 5 }] } }] });
    const ds = validateRuleset(text, { ...update, phase: 'http_log_custom_fields' });
    expect(ds.length).toBeGreaterThan(0);
    for (const d of ds) {
      expect(d.range, d.code).toBeDefined();
      expect(d.pointer!.startsWith('/rules/0/action_parameters')).toBe(true);
    }
    expect(ds.map((d) => text.slice(d.range!.start, d.range!.end))).toContain('{"name":5}');
  });
});

describe('fields of the other phase family', () => {
  const check = (expression: string, phase: string) => validateRuleset({ rules: [{ action: 'block', expression }] }, { ...update, phase: phase as never });

  it('an HTTP field in a network phase, and a packet field in an HTTP phase, name the phase and drop the rename fix', () => {
    const http = check('http.host == "a.example" and tcp.dstport == 1', 'network_transit');
    expect(http.map((d) => [d.code, d.severity, d.pointer, d.message, d.fix, d.data, d.range])).toEqual([
      ['rule-field-phase', 'error', '/rules/0/expression', 'http.host is a field of HTTP requests (the http_* phases); the network_transit phase reads packet fields', undefined, { field: 'http.host', phase: 'network_transit', fieldSet: 'http' }, { start: 0, end: 9 }],
    ]);
    const packet = check('tcp.dstport == 1', 'http_request_firewall_custom');
    expect(packet.map((d) => [d.code, d.message, d.data])).toEqual([
      ['rule-field-phase', 'tcp.dstport is a packet field (the network phases); the http_request_firewall_custom phase reads HTTP request fields', { field: 'tcp.dstport', phase: 'http_request_firewall_custom', fieldSet: 'network' }],
    ]);
  });

  it('a name of neither family stays unknown-field, with its fix; without a phase nothing is renamed', () => {
    const typo = check('tcp.dstprot == 1', 'network_transit');
    expect(typo.map((d) => d.code)).toEqual(['unknown-field']);
    expect(typo[0]!.fix).toBeDefined();
    expect(validateRuleset({ rules: [{ action: 'block', expression: 'http.host == "a"' }] }, update).map((d) => d.code)).toEqual(['unknown-field']);
    // Other diagnostics pass through unchanged.
    expect(check('tcp.dstport == 99999', 'network_transit').map((d) => d.code)).toEqual(['value-out-of-range']);
  });
});

describe('numericCode is FNV-1a (32-bit) of the code, folded into 10000..99999', () => {
  it('matches the published FNV-1a test vectors', async () => {
    const { numericCode } = await import('../../src/index.js');
    // FNV-1a 32-bit of "", "a", "foobar" (the FNV reference test suite).
    for (const [text, hash] of [['', 0x811c9dc5], ['a', 0xe40c292c], ['foobar', 0xbf9cf968]] as const) expect(numericCode(text), text).toBe(10000 + (hash % 90000));
  });
});

describe('diagnostics of JSON text', () => {
  it('JSON errors, duplicate members and duplicate refs say what and where', () => {
    const bad = validateRuleset('{"rules": [}');
    expect(bad.length).toBeGreaterThan(0);
    for (const d of bad) {
      expect(d.code).toBe('ruleset-invalid-json');
      expect(d.message.startsWith('the ruleset body is not valid JSON: ')).toBe(true);
      expect(d.message.length).toBeGreaterThan('the ruleset body is not valid JSON: '.length);
      expect(d.range).toBeDefined();
      expect(d.pointer).toBe('');
    }
    const text = '{"rules":[{"action":"block","expression":"sip","ref":"a"},{"action":"block","expression":"sip","ref":"a","ref":"b"},{"action":"block","expression":"sip","ref":"a"}]}';
    const ds = validateRuleset(text, update);
    expect(ds.map((d) => [d.code, d.pointer, d.message, text.slice(d.range!.start, d.range!.end)])).toEqual([
      ['ruleset-duplicate-member', '/rules/1/ref', '"ref" appears twice in this object; only the last one counts', '"ref"'],
      ['ruleset-duplicate-ref', '/rules/2/ref', 'rule 2 has the same ref "a" as rule 0', '"a"'],
    ]);
    // The duplicate is the second key of rule 1.
    expect(ds[0]!.range!.start).toBe(text.indexOf('"ref":"b"'));
  });

  it('a rule member that does not exist, and an action that is not a string, are one diagnostic each', () => {
    const ds = validateRuleset({ rules: [{ action: 'block', expression: 'sip', expresion: 'x' }, { action: 5, expression: 'sip' }] }, update);
    expect(ds.map((d) => [d.code, d.pointer, d.message])).toEqual([
      ['ruleset-unknown-member', '/rules/0/expresion', 'a rule has no member "expresion"; did you mean "expression"?'],
      ['ruleset-member-type', '/rules/1/action', '"action" of a rule must be a string, not the number 5'],
    ]);
  });

  it('the phase/kind mismatch carries its fix; a diagnostic has no members it was not given', () => {
    const [d] = validateRuleset({ name: 'a', kind: 'zone', phase: 'network_transit' });
    expect(d!.fix).toEqual({ title: 'set kind to "root"', edits: [] });
    expect(Object.keys(validateRuleset(null)[0]!)).toEqual(['code', 'severity', 'message', 'pointer']);
    expect(Object.keys(d!).sort()).toEqual(['code', 'fix', 'message', 'pointer', 'severity']);
  });
});
