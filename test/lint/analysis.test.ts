/** `rulekit lint` reports ruleset analysis findings in JSON and YAML bodies, at the place in the file. */
import { describe, expect, it } from 'vitest';
import { checkExtracted, extract } from '../../src/lint/index.js';

const json = `{
  "name": "fw", "kind": "root", "phase": "network_transit",
  "rules": [
    { "action": "block", "expression": "tcp.dstport in {1..1024}" },
    { "action": "block", "expression": "tcp.dstport == 22" }
  ]
}
`;

describe('lint: analysis findings', () => {
  it('a redundant rule in a JSON body is reported on its expression', () => {
    const found = checkExtracted(extract(json, 'json', true)).filter((d) => d.code === 'rule-redundant');
    expect(found).toHaveLength(1);
    const at = json.indexOf('tcp.dstport == 22');
    expect(found[0]!.range).toEqual({ start: at, end: at + 'tcp.dstport == 22'.length });
  });

  it('a YAML body too; a body with errors is not analysed', () => {
    const yaml = 'name: fw\nkind: root\nphase: network_transit\nrules:\n  - action: block\n    expression: tcp.dstport in {1..1024}\n  - action: block\n    expression: tcp.dstport == 22\n';
    expect(checkExtracted(extract(yaml, 'yaml', true)).map((d) => d.code)).toContain('rule-redundant');
    const broken = json.replace('"tcp.dstport in {1..1024}"', '"tcp.dstport in {1..1024"');
    expect(checkExtracted(extract(broken, 'json', true)).map((d) => d.code)).not.toContain('rule-redundant');
  });
});

describe('lint: analysis findings in Terraform', () => {
  const tf = `resource "cloudflare_ruleset" "fw" {
  account_id = var.account_id
  name       = "fw"
  kind       = "root"
  phase      = "magic_transit"
  rules = [
    {
      action     = "block"
      expression = "tcp.dstport in {1..1024}"
    },
    {
      action      = "block"
      expression  = "tcp.dstport == 22"
      description = "ssh"
    },
    {
      action     = "block"
      expression = "ip.src in {\${var.office}} and tcp.dstport == 23"
    },
  ]
}

resource "cloudflare_ruleset" "legacy" {
  account_id = var.account_id
  name       = "legacy"
  kind       = "root"
  phase      = "network_transit"
  rules {
    action     = "block"
    expression = <<-EOT
      udp.dstport == 53
    EOT
  }
  rules {
    action     = "block"
    expression = "udp.dstport == 53 and ip.src in {10.0.0.0/8}"
  }
}
`;

  it('reports shadowed rules of v5 and v4 resources inside their strings; an interpolated rule gets no claim', async () => {
    const { lintText } = await import('../../src/lint/index.js');
    const { diagnostics } = await lintText(tf, 'terraform', true, {}, 'fw.tf');
    const found = diagnostics.filter((d) => d.code === 'rule-redundant');
    expect(found.map((d) => [d.where, tf.slice(d.range!.start, d.range!.end)])).toEqual([
      ['cloudflare_ruleset.fw.rules[1].expression', 'tcp.dstport == 22'],
      ['cloudflare_ruleset.legacy.rules[1].expression', 'udp.dstport == 53 and ip.src in {10.0.0.0/8}'],
    ]);
  });
});

describe('lint: analysis of HTTP-phase rulesets', () => {
  const body = `{
  "name": "waf", "kind": "zone", "phase": "http_request_firewall_custom",
  "rules": [
    { "action": "block", "expression": "http.host eq \\"a\\"" },
    { "action": "block", "expression": "http.host eq \\"a\\"" },
    { "action": "block", "expression": "lower(http.host) eq \\"a\\"" }
  ]
}
`;

  it('a JSON body is analysed with the HTTP fields: the shadowed pair found, the function rule left out with an info', () => {
    const found = checkExtracted(extract(body, 'json', true));
    expect(found.filter((d) => d.severity === 'error')).toEqual([]);
    expect(found.filter((d) => d.code.startsWith('rule-') && d.code !== 'rule-action-parameters-not-checked').map((d) => [d.code, body.slice(d.range!.start, d.range!.end)])).toEqual([
      ['rule-redundant', 'http.host eq \\"a\\"'],
      ['rule-not-analysed', 'lower(http.host) eq \\"a\\"'],
    ]);
  });

  it('a Terraform resource of an HTTP phase too', async () => {
    const tf = `resource "cloudflare_ruleset" "waf" {
  zone_id = var.zone_id
  name    = "waf"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules = [
    { action = "block", expression = "http.host eq \\"a\\"" },
    { action = "block", expression = "http.host eq \\"a\\"" },
    { action = "block", expression = "any(http.request.headers.names[*] eq \\"x\\")" },
  ]
}
`;
    const { lintText } = await import('../../src/lint/index.js');
    const { diagnostics } = await lintText(tf, 'terraform', true, {}, 'waf.tf');
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(diagnostics.filter((d) => d.code === 'rule-redundant' || d.code === 'rule-not-analysed').map((d) => [d.code, d.where])).toEqual([
      ['rule-redundant', 'cloudflare_ruleset.waf.rules[1].expression'],
      ['rule-not-analysed', 'cloudflare_ruleset.waf.rules[2].expression'],
    ]);
  });
});
