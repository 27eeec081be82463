/**
 * The readers of the catalog of kinds, phases and actions agree: for every kind × phase × action at
 * either level, `validateRuleset`, Terraform lint (the extractor and its checks) and the server's create
 * handler accept the ruleset, or all three refuse it. Each rule has the smallest action_parameters its
 * action takes, so what decides is the catalog: kind at the level, kind with phase, action in phase.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/server/index.js';
import { ACTION_CATALOG, KIND_CATALOG, PHASE_CATALOG, validateRuleset } from '../../src/ruleset/index.js';
import { checkExtracted, extractTerraform } from '../../src/lint/index.js';
import { hasErrors } from '../../src/diagnostics/index.js';
import { jsonBody, minimalParameters, terraformOf, type RulesetCase } from '../helpers/rulesets.js';

const USER = { email: 'catalog@example.com', key: 'catalog-key-01', accounts: ['a'], zones: ['z'] };
const H = { 'x-auth-email': USER.email, 'x-auth-key': USER.key };
const URL_OF = { account: '/client/v4/accounts/a/rulesets?dry_run=true', zone: '/client/v4/zones/z/rulesets?dry_run=true' } as const;

const cases: RulesetCase[] = [];
for (const kind of [...Object.keys(KIND_CATALOG), 'customs'])
  for (const phase of [...Object.keys(PHASE_CATALOG), 'http_request_snippets'])
    for (const action of [...Object.keys(ACTION_CATALOG), 'allow'])
      for (const scope of ['account', 'zone'] as const) {
        const params = minimalParameters(action, phase);
        cases.push({ kind, phase, scope, rules: [{ action, expression: 'true', ...(params ? { action_parameters: params } : {}) }] });
      }

let app: FastifyInstance;
beforeAll(async () => {
  app = await createServer({ users: [USER] });
});
afterAll(async () => {
  await app.close();
});

describe('the readers of the catalog', () => {
  it('accept or refuse every kind × phase × action at either level alike', async () => {
    const disagreements: string[] = [];
    let accepted = 0;
    for (const c of cases) {
      const validated = !hasErrors(validateRuleset(jsonBody(c), { scope: c.scope, operation: 'create' }));
      const linted = !hasErrors(checkExtracted(extractTerraform(terraformOf(c))));
      const r = await app.inject({ method: 'POST', url: URL_OF[c.scope], headers: H, payload: jsonBody(c) });
      const served = r.statusCode === 200;
      if (validated) accepted++;
      if (validated !== linted || validated !== served) disagreements.push(`${c.kind} ${c.phase} ${c.rules[0]!.action} at the ${c.scope} level: validate ${validated}, terraform ${linted}, server ${served} (${r.statusCode})`);
    }
    expect(disagreements).toEqual([]);
    // Both answers were given many times: the loop is not agreeing on refusing everything.
    expect(accepted).toBeGreaterThan(300);
    expect(cases.length - accepted).toBeGreaterThan(300);
  }, 120_000);

  it('take the kinds the false reds were about: custom at either level, managed, an exposed credential check with rewrite', async () => {
    const ok = async (c: RulesetCase) => {
      const r = await app.inject({ method: 'POST', url: URL_OF[c.scope], headers: H, payload: jsonBody(c) });
      return [!hasErrors(validateRuleset(jsonBody(c), { scope: c.scope })), !hasErrors(checkExtracted(extractTerraform(terraformOf(c)))), r.statusCode];
    };
    const waf = { action: 'block', expression: 'http.host eq "example.com"' };
    expect(await ok({ kind: 'custom', phase: 'http_request_firewall_custom', scope: 'account', rules: [waf] })).toEqual([true, true, 200]);
    expect(await ok({ kind: 'custom', phase: 'http_request_firewall_custom', scope: 'zone', rules: [waf] })).toEqual([true, true, 200]);
    expect(await ok({ kind: 'managed', phase: 'ddos_l7', scope: 'zone', rules: [{ action: 'ddos_dynamic', expression: 'true' }] })).toEqual([true, true, 200]);
    const credentials = {
      action: 'rewrite',
      expression: 'http.request.method eq "POST"',
      action_parameters: { headers: { 'exposed-credential-check': { operation: 'set', value: '1' } } },
      exposed_credential_check: { username_expression: 'url_decode(http.request.body.form["user"][0])', password_expression: 'url_decode(http.request.body.form["pass"][0])' },
    };
    expect(await ok({ kind: 'custom', phase: 'http_request_firewall_custom', scope: 'account', rules: [credentials as never] })).toEqual([true, true, 200]);
    expect(await ok({ kind: 'zone', phase: 'http_request_firewall_custom', scope: 'account', rules: [waf] })).toEqual([false, false, 400]);
  });
});
