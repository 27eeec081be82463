/**
 * `rulekit lint` checks a rule's value expressions — rewrites, redirect targets, counting expressions,
 * exposed credential checks — as values, in JSON, YAML and both Terraform provider shapes, at the place in
 * the file.
 */
import { describe, expect, it } from 'vitest';
import { checkExtracted, extract } from '../../src/lint/index.js';

const at = (text: string, part: string) => ({ start: text.indexOf(part), end: text.indexOf(part) + part.length });
const lint = (text: string, kind: 'json' | 'yaml' | 'terraform') => checkExtracted(extract(text, kind, true), { analysis: false }).filter((d) => d.severity !== 'info');

const BAD = 'lower(url_decode(http.request.body.form[\\"u\\"][0]))';

describe('lint: value expressions', () => {
  it('JSON: a nested function in a credential expression, at the inner call', () => {
    const json = `{ "name": "w", "kind": "zone", "phase": "http_request_firewall_custom", "rules": [
  { "action": "log", "expression": "true",
    "exposed_credential_check": { "username_expression": "${BAD}", "password_expression": "url_decode(http.request.body.form[\\"p\\"][0])" } }
] }`;
    const d = lint(json, 'json');
    expect(d.map((x) => [x.code, x.where])).toEqual([['rule-credential-expression', '/rules/0/exposed_credential_check/username_expression']]);
    expect(d[0]!.range).toEqual(at(json, 'url_decode(http.request.body.form[\\"u\\"]'.slice(0, 'url_decode'.length)));
  });

  it('YAML: the same rules, and a managed_challenge with a credential check', () => {
    const yaml = `name: w
kind: zone
phase: http_request_firewall_custom
rules:
  - action: managed_challenge
    expression: http.request.method eq "POST"
    exposed_credential_check:
      username_expression: to_string(cf.bot_management.score)
`;
    const d = lint(yaml, 'yaml');
    expect(d.map((x) => [x.code, x.where])).toEqual([
      ['rule-credential-check-action', '/rules/0/action'],
      ['ruleset-missing-member', '/rules/0/exposed_credential_check'],
      ['rule-credential-expression', '/rules/0/exposed_credential_check/username_expression'],
    ]);
    expect(d[2]!.range).toEqual(at(yaml, 'to_string'));
  });

  it('Terraform v5: rewrite, header, counting and credential expressions, each at its literal', () => {
    const tf = `resource "cloudflare_ruleset" "t" {
  zone_id = var.zone_id
  name    = "t"
  kind    = "zone"
  phase   = "http_request_late_transform"
  rules = [{
    action     = "rewrite"
    expression = "true"
    action_parameters = {
      headers = {
        "X-Host" = { operation = "set", expression = "http.host eq \\"a\\"" }
        "X-Ok"   = { operation = "set", expression = "lower(http.host)" }
      }
    }
  }]
}
resource "cloudflare_ruleset" "rl" {
  zone_id = var.zone_id
  name    = "rl"
  kind    = "zone"
  phase   = "http_ratelimit"
  rules = [{
    action     = "block"
    expression = "true"
    ratelimit  = { characteristics = ["ip.src"], period = 60, requests_per_period = 10, mitigation_timeout = 60, counting_expression = "tcp.dstport eq 80" }
  }]
}
resource "cloudflare_ruleset" "waf" {
  zone_id = var.zone_id
  name    = "waf"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules = [{
    action     = "managed_challenge"
    expression = "true"
    exposed_credential_check = { username_expression = "${BAD}", password_expression = "lower(http.host)" }
  }]
}
`;
    const d = lint(tf, 'terraform');
    expect(d.map((x) => [x.code, x.where ?? ''])).toEqual([
      ['value-expression-type', 'cloudflare_ruleset.t.rules[0].action_parameters.headers["X-Host"].expression'],
      ['rule-field-phase', 'cloudflare_ruleset.rl.rules[0].ratelimit.counting_expression'],
      ['rule-credential-check-action', ''],
      ['rule-credential-expression', 'cloudflare_ruleset.waf.rules[0].exposed_credential_check.username_expression'],
    ]);
    expect(d[1]!.range).toEqual(at(tf, 'tcp.dstport'));
    expect(d[2]!.range).toEqual(at(tf, '"managed_challenge"'));
    expect(d[2]!.fix?.edits).toEqual([{ range: at(tf, '"managed_challenge"'), newText: '"log"' }]);
    expect(d[3]!.range).toEqual({ start: tf.indexOf('url_decode'), end: tf.indexOf('url_decode') + 'url_decode'.length });
  });

  it('Terraform v4 blocks: uri path, headers blocks and exposed_credential_check', () => {
    const tf = `resource "cloudflare_ruleset" "t" {
  zone_id = var.zone_id
  name    = "t"
  kind    = "zone"
  phase   = "http_request_transform"
  rules {
    action     = "rewrite"
    expression = "true"
    action_parameters {
      uri {
        path {
          expression = "concat(http.request.uri.path, 1)"
        }
      }
    }
  }
}
resource "cloudflare_ruleset" "h" {
  zone_id = var.zone_id
  name    = "h"
  kind    = "zone"
  phase   = "http_request_late_transform"
  rules {
    action     = "rewrite"
    expression = "true"
    action_parameters {
      headers {
        name       = "X-A"
        operation  = "set"
        expression = "http.unknown_thing"
      }
    }
  }
}
resource "cloudflare_ruleset" "waf" {
  zone_id = var.zone_id
  name    = "waf"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules {
    action     = "log"
    expression = "true"
    exposed_credential_check {
      username_expression = "regex_replace(http.host, \\"a\\", \\"b\\")"
    }
  }
}
`;
    const d = lint(tf, 'terraform');
    expect(d.map((x) => [x.code, x.where ?? ''])).toEqual([
      ['literal-type-mismatch', 'cloudflare_ruleset.t.rules[0].action_parameters.uri.path.expression'],
      ['unknown-field', 'cloudflare_ruleset.h.rules[0].action_parameters.headers["X-A"].expression'],
      ['ruleset-missing-member', ''],
      ['rule-credential-expression', 'cloudflare_ruleset.waf.rules[0].exposed_credential_check.username_expression'],
    ]);
    expect(d[1]!.range).toEqual(at(tf, 'http.unknown_thing'));
    expect(d[3]!.range).toEqual(at(tf, 'regex_replace'));
  });

  it('a clean file has no findings', () => {
    const tf = `resource "cloudflare_ruleset" "waf" {
  account_id = var.a
  name    = "waf"
  kind    = "root"
  phase   = "http_request_firewall_custom"
  rules = [{
    action     = "log"
    expression = "http.request.method eq \\"POST\\""
    exposed_credential_check = { username_expression = "url_decode(http.request.body.form[\\"u\\"][0])", password_expression = "lookup_json_string(http.request.body.raw, \\"p\\")" }
  }]
}
`;
    expect(lint(tf, 'terraform')).toEqual([]);
  });
});
