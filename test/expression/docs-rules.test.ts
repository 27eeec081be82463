/**
 * Rules of the Rules language that the docs state in words, each with an expression that keeps it and one
 * that breaks it: has_key()/has_value() (the January 2026 changelog), `[*]` in a function's first argument
 * only, concat() once in a rewrite, a single condition beside `[*]` ones in any()/all(), and the Network
 * Firewall's complexity limit.
 */
import { describe, expect, it } from 'vitest';
import { checkExpression, checkValueExpression, compileExpression, HTTP_SCHEME } from '../../src/expression/index.js';
import { validateRuleset } from '../../src/ruleset/index.js';

const codes = (text: string, phase = 'http_request_firewall_custom') => checkExpression(text, { scheme: HTTP_SCHEME, phase }).diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);

describe('rules the docs state in words', () => {
  it('has_key() and has_value() as the changelog shows them, typed and evaluated', () => {
    expect(codes('has_key(http.request.headers, "x-custom-header")')).toEqual([]);
    expect(codes('has_value(split(http.response.headers["x-allow-country"][0], ",", 64), ip.src.country)', 'http_response_headers_transform')).toEqual([]);
    expect(codes('has_value(http.request.headers.names, 3)')).toEqual(['function-arguments']);
    expect(codes('has_key(http.request.headers.names, "x")')).toEqual(['function-arguments']);
    const m = compileExpression('has_key(http.request.headers, "x-a") and has_value(http.request.headers.names, "x-a")', { scheme: HTTP_SCHEME }).matcher!;
    expect(m({ 'http.request.headers': new Map([['x-a', ['1']]]), 'http.request.headers.names': ['x-a'] })).toBe(true);
    expect(m({ 'http.request.headers': new Map([['x-b', ['1']]]), 'http.request.headers.names': ['x-b'] })).toBe(false);
  });

  it('[*] unpacks a function\'s first argument only', () => {
    expect(codes('any(ends_with(http.request.headers.names[*], "x"))')).toEqual([]);
    expect(codes('concat("a", http.request.headers.names[*])[0] == "a"')).toEqual(['function-arguments']);
  });

  it('concat() once in a rewrite expression (not limited in filters)', () => {
    expect(checkValueExpression('concat("/a", http.request.uri.path, "/b")', { scheme: HTTP_SCHEME }).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(checkValueExpression('concat("/a", concat("/b", http.request.uri.path))', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toContain('function-context');
    expect(codes('concat("/a", http.request.uri.path) == "/a/b" and concat(http.host, "x") == "hx"')).toEqual([]);
  });

  it('a single condition beside [*] ones inside any(), the same for every item; alone it is still refused', () => {
    const text = 'any(cf.bot_management.detection_ids[*] eq 201326593 and cf.waf.credential_check.username_and_password_leaked)';
    expect(codes(text)).toEqual([]);
    for (const codegen of [true, false]) {
      const m = compileExpression(text, { scheme: HTTP_SCHEME, codegen }).matcher!;
      expect(m({ 'cf.bot_management.detection_ids': [1, 201326593], 'cf.waf.credential_check.username_and_password_leaked': true })).toBe(true);
      expect(m({ 'cf.bot_management.detection_ids': [1, 201326593], 'cf.waf.credential_check.username_and_password_leaked': false })).toBe(false);
      expect(m({ 'cf.bot_management.detection_ids': [1], 'cf.waf.credential_check.username_and_password_leaked': true })).toBe(false);
    }
    expect(codes('any(ssl and cf.waf.credential_check.username_and_password_leaked)')).toEqual(['quantifier-argument']);
    expect(codes('any(ssl)')).toEqual(['quantifier-argument']);
  });

  it("the Network Firewall refuses from the docs' example's 512 alternatives, and only there", () => {
    const pairs = (n: number) => Array.from({ length: n }, (_, i) => `(tcp.dstport == ${1000 + 2 * i} || tcp.dstport == ${1001 + 2 * i})`).join(' && ');
    const body = (expression: string, phase = 'magic_transit') => ({ name: 'mt', kind: 'root', phase, rules: [{ action: 'block', expression }] });
    const found = (e: string, phase?: string) => validateRuleset(body(e, phase), { scope: 'account' }).map((d) => d.code);
    expect(found(pairs(9))).toEqual(['rule-complexity-limit']);
    expect(found(pairs(8))).toEqual([]);
    expect(found(`not (${pairs(9).replace(/&&/g, '||').replace(/\|\| tcp/g, '&& tcp')})`)).toEqual(['rule-complexity-limit']);
    // The seed's network_transit has no such limit.
    expect(found(pairs(9), 'network_transit')).toEqual([]);
  });
});

describe('the 64-regex limit', () => {
  it('"Each rule can contain a maximum of 64 regular expressions in its expression": 64 pass, 65 do not', () => {
    const regexes = (n: number) => Array.from({ length: n }, (_, i) => `http.request.uri.path matches "^/p${i}/"`).join(' or ');
    expect(codes(regexes(64))).toEqual([]);
    expect(codes(regexes(65))).toEqual(['too-many-regexes']);
    // wildcard is not a regular expression of the docs' count.
    expect(codes(`${regexes(64)} or http.host wildcard "*.example.com"`)).toEqual([]);
  });
});
