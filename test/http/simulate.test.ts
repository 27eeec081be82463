/**
 * HTTP requests through HTTP-phase rulesets: verdicts by the Actions reference's terminating column,
 * skip of the current ruleset, non-terminating matches recorded, execute noted; the action table agrees
 * with the phases' actions; response fields are errors in request phases only.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_CATALOG, PHASE_CATALOG, validateRuleset, HTTP_FIELD_ROWS, HTTP_SCHEME, compileExpression } from '../../src/index.js';
import { RESPONSE_PHASES, responseFieldPhases } from '../../src/ruleset/index.js';
import { readRequests, simulateRequests, type HttpRequest } from '../../src/http/index.js';
import { checkExtracted, extractYaml } from '../../src/lint/index.js';

const req = (url: string, more: Partial<HttpRequest> = {}): HttpRequest => ({ method: 'GET', url, headers: [['Host', 'example.com']], ...more });
const waf = (rules: unknown[], phase = 'http_request_firewall_custom') => ({ name: 'waf', kind: 'zone', phase, rules }) as never;

describe('simulateRequests', () => {
  it("gives each request the deciding rule's terminating action as its verdict, non-terminating matches on the way", () => {
    const ruleset = waf([
      { action: 'log', expression: 'http.request.method eq "POST"' },
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in {192.0.2.0/24}' },
      { action: 'block', expression: 'http.request.uri.path wildcard "/admin*"' },
      { action: 'managed_challenge', expression: 'http.user_agent contains "curl"' },
      { action: 'js_challenge', expression: 'http.request.uri.query contains "x"', enabled: false },
    ]);
    const r = simulateRequests(ruleset, [
      req('/admin/users', { clientIp: '198.51.100.1' }),
      req('/login', { method: 'POST', headers: [['User-Agent', 'curl/8.5']] }),
      req('/admin', { clientIp: '192.0.2.7', method: 'post' }),
      req('/?x=1'),
    ]);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.results.map((x) => [x.verdict, x.decidedBy?.index ?? null, x.matched])).toEqual([
      ['block', 2, [2]],
      ['managed_challenge', 3, [0, 3]],
      ['allow', 1, [0, 1]],
      ['allow', null, []],
    ]);
    expect(r.summary.verdicts).toEqual({ allow: 2, block: 1, managed_challenge: 1 });
    expect(r.summary.defaultAllowed).toBe(1);
    expect(r.summary.rules.map((x) => [x.matched, x.decided])).toEqual([[2, 0], [1, 1], [1, 1], [1, 1], [0, 0]]);
  });

  it('runs every action of non-firewall phases: rewrite and route never decide; redirect and serve_error do', () => {
    const t = simulateRequests(waf([{ action: 'rewrite', expression: 'true' }, { action: 'rewrite', expression: 'http.host eq "example.com"' }], 'http_request_transform'), [req('/a')]);
    expect(t.results[0]).toMatchObject({ verdict: 'allow', matched: [0, 1] });
    const d = simulateRequests(waf([{ action: 'redirect', expression: 'http.request.uri.path eq "/old"' }, { action: 'redirect', expression: 'true' }], 'http_request_dynamic_redirect'), [req('/old'), req('/new')]);
    expect(d.results.map((x) => [x.verdict, x.decidedBy?.index])).toEqual([['redirect', 0], ['redirect', 1]]);
    const e = simulateRequests(waf([{ action: 'serve_error', expression: 'http.response.code ge 500' }], 'http_custom_errors'), [req('/', { response: { status: 502, headers: [] } }), req('/', { response: { status: 200, headers: [] } })]);
    expect(e.results.map((x) => x.verdict)).toEqual(['serve_error', 'allow']);
    expect(e.summary.verdicts).toEqual({ allow: 1, block: 0, serve_error: 1 });
  });

  it('notes that execute rules are counted but what they execute is not simulated', () => {
    const r = simulateRequests(waf([{ action: 'execute', action_parameters: { id: 'efb7b8c949ac4650a09736fc376e9aee' }, expression: 'true' }], 'http_request_firewall_managed'), [req('/')]);
    expect(r.diagnostics.map((d) => `${d.severity}:${d.code}:${d.pointer}`)).toEqual(['info:simulation-execute-not-run:/rules/0/action']);
    expect(r.results[0]).toMatchObject({ verdict: 'allow', matched: [0] });
  });

  it('leaves out, and says so, exactly the rules the expression pipeline has no matcher for', () => {
    // lower() is a function the pipeline may or may not evaluate (functions are being added): either way
    // the simulation agrees with compileExpression.
    const expression = 'lower(http.host) eq "example.com"';
    const evaluable = compileExpression(expression, { scheme: HTTP_SCHEME }).matcher !== undefined;
    const r = simulateRequests(waf([{ action: 'block', expression }, { action: 'log', expression: 'true' }]), [req('/')]);
    const leftOut = r.diagnostics.filter((d) => d.code === 'simulation-rule-left-out').map((d) => `${d.severity}:${d.pointer}`);
    expect(leftOut).toEqual(evaluable ? [] : ['warning:/rules/0/expression']);
    expect(r.results[0]).toMatchObject(evaluable ? { verdict: 'block', matched: [0] } : { verdict: 'allow', matched: [1] });
  });

  it('refuses a network-phase ruleset (it reads packets)', () => {
    const r = simulateRequests({ name: 'n', kind: 'root', phase: 'network_transit', rules: [] } as never, [req('/')]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['simulation-http-phase']);
  });

  it('reads requests from HAR and NDJSON alike', () => {
    const ruleset = waf([{ action: 'block', expression: 'http.request.uri.query eq "x=1"' }]);
    const nd = readRequests('{"method":"GET","url":"https://example.com/?x=1"}\n{"method":"GET","url":"https://example.com/"}\n');
    const har = readRequests(JSON.stringify({ log: { entries: [{ request: { method: 'GET', url: 'https://example.com/?x=1' } }, { request: { method: 'GET', url: 'https://example.com/' } }] } }));
    const verdicts = (read: typeof nd) => simulateRequests(ruleset, read.requests.map((r) => r.request)).results.map((x) => x.verdict);
    expect(verdicts(nd)).toEqual(['block', 'allow']);
    expect(verdicts(har)).toEqual(['block', 'allow']);
  });
});

describe('the action table', () => {
  it("has every action of every phase, and the Actions reference's terminating ones", () => {
    const actions = new Set(Object.values(PHASE_CATALOG).flatMap((p) => p.actions as readonly string[]));
    expect([...actions].sort()).toEqual(Object.keys(ACTION_CATALOG).sort());
    expect(Object.entries(ACTION_CATALOG).filter(([, a]) => a.terminating).map(([n]) => n).sort()).toEqual(['block', 'challenge', 'js_challenge', 'log_custom_field', 'managed_challenge', 'redirect', 'serve_error']);
  });
});

describe('response fields by phase', () => {
  it('are errors in request phases, naming the phase and where they may be read', () => {
    const d = validateRuleset(waf([{ action: 'block', expression: 'http.request.uri.path eq "/x" and http.response.code eq 404' }]));
    expect(d.map((x) => `${x.code}@${x.pointer}:${JSON.stringify(x.range)}`)).toEqual(['rule-field-phase@/rules/0/expression:{"start":34,"end":52}']);
    expect(d[0]!.message).toContain('http.response.code is a response field');
    expect(d[0]!.message).toContain('http_request_firewall_custom runs before the response exists');
  });

  it('are read in response phases; cf.response.* only in response header transforms and custom errors', () => {
    // Each rule with the action_parameters its action needs (rewrite something, compress with some algorithm).
    const rewrite = { headers: { 'x-error': { operation: 'set', value: '1' } } };
    const compress = { algorithms: [{ name: 'gzip' }] };
    expect(validateRuleset(waf([{ action: 'rewrite', expression: 'http.response.code eq 404 and cf.response.error_type eq "waf"', action_parameters: rewrite }], 'http_response_headers_transform')).filter((x) => x.severity !== 'info')).toEqual([]);
    expect(validateRuleset(waf([{ action: 'compress_response', expression: 'http.response.content_type.media_type eq "text/html"', action_parameters: compress }], 'http_response_compression')).filter((x) => x.severity !== 'info')).toEqual([]);
    const d = validateRuleset(waf([{ action: 'compress_response', expression: 'cf.response.1xxx_code eq 1020', action_parameters: compress }], 'http_response_compression')).filter((x) => x.severity !== 'info');
    expect(d.map((x) => x.code)).toEqual(['rule-field-phase']);
    expect(d[0]!.message).toContain('read only in the http_response_headers_transform, http_custom_errors phases');
  });

  it('every response field of the reference has its phases, every request field none', () => {
    for (const [name] of HTTP_FIELD_ROWS) {
      const phases = responseFieldPhases(name);
      if (/^(raw\.)?http\.response\.|^cf\.response\./.test(name)) expect(phases?.length, name).toBeGreaterThan(0);
      else expect(phases, name).toBeUndefined();
      for (const p of phases ?? []) expect(RESPONSE_PHASES).toContain(p);
    }
  });

  it('lint reports them too', () => {
    const yaml = 'name: waf\nkind: zone\nphase: http_request_firewall_custom\nrules:\n  - action: block\n    expression: http.response.code eq 403\n';
    expect(checkExtracted(extractYaml(yaml)).map((d) => d.code)).toContain('rule-field-phase');
  });
});
