/**
 * No false green: every rule expression and Logpush filter that HashiCorp's HCL parser (`@cdktf/hcl2json`)
 * finds in a Terraform file is either checked by `rulekit lint` or reported as not literal — over random
 * files in the layouts people and `terraform fmt` write (one-line and multi-line lists and objects, trailing
 * commas or none, comments between elements, heredocs, `dynamic` blocks, `jsonencode`, CRLF, tabs). The
 * parser is the oracle; rulekit's reader is what is tested. Each literal value rulekit checks must also read
 * as the parser reads it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse as hclParse } from '@cdktf/hcl2json';
import { extractTerraform, lintText } from '../../src/lint/index.js';
import { oracleValues, whollyInterpolated } from '../../src/lint/terraform-oracle.js';

const RUNS = process.env.CI ? 300 : 120;

/** HCL quoted-string text of a value (quotes, backslashes and template starts escaped). */
const quoted = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$\{/g, '$${').replace(/%\{/g, '%%{')}"`;

const expressions = fc.constantFrom(
  'http.host eq "example.com"',
  'ip.src in {192.0.2.0/24 198.51.100.7}',
  '(http.request.uri.path contains "/admin" and not ip.src in {10.0.0.0/8})',
  'cf.threat_score gt 10',
  'http.request.method in {"POST" "PUT"}',
  'ip.src in {1.1.1.1, 2.2.2.2}', // a finding: rulekit must read it to say so
  'http.host eq "a" AND ip.geoip.country eq "FR"',
);

/** How a rule's expression is written. */
const expressionValue = fc.oneof(
  expressions.map((e) => ({ hcl: quoted(e), literal: true })),
  expressions.map((e) => ({ heredoc: e, literal: true })),
  fc.constant({ hcl: 'var.rule_expression', literal: false }),
  fc.constant({ hcl: '"${var.whole}"', literal: false }),
  fc.constant({ hcl: '"http.host eq \\"${var.host}\\""', literal: true }),
);

interface Layout {
  nl: string;
  indent: string;
  oneLineObjects: boolean;
  trailingComma: boolean;
  comments: boolean;
  flush: boolean;
}

const layouts = fc.record({
  nl: fc.constantFrom('\n', '\r\n'),
  indent: fc.constantFrom('  ', '\t', '    '),
  oneLineObjects: fc.boolean(),
  trailingComma: fc.boolean(),
  comments: fc.boolean(),
  flush: fc.boolean(),
});

type Value = { hcl: string; literal: boolean } | { heredoc: string; literal: boolean };

/** `name = value` at a depth; a heredoc spans lines. */
function attr(name: string, v: Value, depth: number, l: Layout): string {
  const pad = l.indent.repeat(depth);
  if ('hcl' in v) return `${pad}${name} = ${v.hcl}`;
  const body = l.flush ? v.heredoc.split('\n').map((x) => pad + l.indent + x).join(l.nl) : v.heredoc;
  return `${pad}${name} = <<${l.flush ? '-' : ''}EOT${l.nl}${body}${l.nl}${l.flush ? pad : ''}EOT`;
}

const comment = (i: number) => ['# between elements', '// another', '/* a block comment */'][i % 3]!;

function v5Rules(rules: Value[], l: Layout): string {
  const p1 = l.indent, p2 = l.indent.repeat(2), p3 = l.indent.repeat(3);
  const items = rules.map((r, i) => {
    const oneLine = l.oneLineObjects && 'hcl' in r;
    const obj = oneLine
      ? `${p2}{ action = "block", expression = ${(r as { hcl: string }).hcl} }`
      : `${p2}{${l.nl}${p3}action = "block"${l.nl}${attr('expression', r, 3, l)}${l.nl}${p3}enabled = true${l.nl}${p2}}`;
    return (l.comments ? `${p2}${comment(i)}${l.nl}` : '') + obj;
  });
  return `${p1}rules = [${l.nl}${items.join(`,${l.nl}`)}${l.trailingComma && items.length ? ',' : ''}${l.nl}${p1}]`;
}

function v4Rules(rules: Value[], l: Layout): string {
  const p1 = l.indent;
  return rules
    .map((r, i) => `${l.comments ? `${p1}${comment(i)}${l.nl}` : ''}${p1}rules {${l.nl}${p1}${p1}action = "block"${l.nl}${attr('expression', r, 2, l)}${l.nl}${p1}}`)
    .join(l.nl);
}

function dynamicRules(r: Value, l: Layout): string {
  const p1 = l.indent, p2 = l.indent.repeat(2), p3 = l.indent.repeat(3);
  return `${p1}dynamic "rules" {${l.nl}${p2}for_each = var.rules${l.nl}${p2}content {${l.nl}${p3}action = rules.value.action${l.nl}${attr('expression', r, 3, l)}${l.nl}${p2}}${l.nl}${p1}}`;
}

const FILTER = { where: { and: [{ key: 'ClientRequestHost', operator: 'eq', value: 'example.com' }, { key: 'EdgeResponseStatus', operator: 'geq', value: 500 }] } };

/** A Logpush job's `filter` in one of the ways people write it. */
function filterAttr(how: number, l: Layout): { text: string; literal: boolean } {
  const p1 = l.indent, p2 = l.indent.repeat(2), p3 = l.indent.repeat(3), p4 = l.indent.repeat(4);
  switch (how) {
    case 0: return { text: `${p1}filter = ${quoted(JSON.stringify(FILTER))}`, literal: true };
    case 1: return { text: `${p1}filter = <<${l.flush ? '-' : ''}EOT${l.nl}${JSON.stringify(FILTER, null, 2).split('\n').map((x) => (l.flush ? p2 : '') + x).join(l.nl)}${l.nl}${l.flush ? p1 : ''}EOT`, literal: true };
    case 2: return { text: `${p1}filter = jsonencode({ where = { and = [{ key = "ClientRequestHost", operator = "eq", value = "example.com" }, { key = "EdgeResponseStatus", operator = "geq", value = 500 }${l.trailingComma ? ',' : ''}] } })`, literal: true };
    case 3: {
      const c = l.comments ? `${p4}# the status${l.nl}` : '';
      const clause = (k: string, op: string, v: string) => `${p4}{${l.nl}${p4}${l.indent}key      = "${k}"${l.nl}${p4}${l.indent}operator = "${op}"${l.nl}${p4}${l.indent}value    = ${v}${l.nl}${p4}}`;
      return {
        text: `${p1}filter = jsonencode({${l.nl}${p2}where = {${l.nl}${p3}and = [${l.nl}${clause('ClientRequestHost', 'eq', '"example.com"')},${l.nl}${c}${clause('EdgeResponseStatus', 'geq', '500')}${l.trailingComma ? ',' : ''}${l.nl}${p3}]${l.nl}${p2}}${l.nl}${p1}})`,
        literal: true,
      };
    }
    default: return { text: `${p1}filter = var.logpush_filter`, literal: false };
  }
}

const resources = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('v5' as const), rules: fc.array(expressionValue, { minLength: 0, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('v4' as const), rules: fc.array(expressionValue, { minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('dynamic' as const), rules: fc.array(expressionValue, { minLength: 1, maxLength: 1 }) }),
    fc.record({ kind: fc.constant('logpush' as const), how: fc.integer({ min: 0, max: 4 }) }),
  ),
  { minLength: 1, maxLength: 4 },
);

function file(rs: typeof resources extends fc.Arbitrary<infer T> ? T : never, l: Layout): string {
  return rs
    .map((r, i) => {
      if (r.kind === 'logpush') {
        return `resource "cloudflare_logpush_job" "job${i}" {${l.nl}${l.indent}zone_id = var.zone_id${l.nl}${l.indent}dataset = "http_requests"${l.nl}${filterAttr(r.how, l).text}${l.nl}}`;
      }
      const body = r.kind === 'v5' ? v5Rules(r.rules, l) : r.kind === 'v4' ? v4Rules(r.rules, l) : dynamicRules(r.rules[0]!, l);
      return `resource "cloudflare_ruleset" "rs${i}" {${l.nl}${l.indent}zone_id = var.zone_id${l.nl}${l.indent}kind    = "zone"${l.nl}${l.indent}phase   = "http_request_firewall_custom"${l.nl}${body}${l.nl}}`;
    })
    .join(l.nl + l.nl) + l.nl;
}

/** Labels rulekit read (checked) or reported as not literal, sorted. */
async function accounted(text: string): Promise<{ checked: string[]; notLiteral: string[]; unread: number }> {
  const { diagnostics, checked } = await lintText(text, 'terraform', true, {}, 'gen.tf');
  return {
    checked: [...checked].sort(),
    notLiteral: diagnostics.filter((d) => d.code === 'lint-not-literal').map((d) => d.where!).sort(),
    unread: diagnostics.filter((d) => d.code === 'lint-unread-value').length,
  };
}

describe('Terraform extraction against HashiCorp\'s parser', () => {
  it('every expression and filter the parser finds is checked or reported not literal, in every layout', async () => {
    await fc.assert(
      fc.asyncProperty(resources, layouts, async (rs, l) => {
        const text = file(rs, l);
        const oracle = oracleValues(await hclParse('gen.tf', text));
        const got = await accounted(text);
        expect(got.unread).toBe(0);
        expect(got.checked).toEqual(oracle.filter((v) => v.literal).map((v) => v.label).sort());
        expect(got.notLiteral).toEqual(oracle.filter((v) => !v.literal).map((v) => v.label).sort());
      }),
      { numRuns: RUNS },
    );
  });

  it('each literal expression reads as the parser reads it (escapes, heredocs, CRLF, tabs)', async () => {
    await fc.assert(
      fc.asyncProperty(resources, layouts, async (rs, l) => {
        const text = file(rs, l);
        const parsed = (await hclParse('gen.tf', text)) as { resource?: Record<string, Record<string, { rules?: { expression?: string }[] }[]>> };
        for (const item of extractTerraform(text).items) {
          if ('value' in item || item.kind !== 'expression' || item.holes.length) continue;
          const m = /^cloudflare_ruleset\.(\w+)\.rules\[(\d+)\]\.expression$/.exec(item.label);
          if (!m) continue;
          const want = parsed.resource!['cloudflare_ruleset']![m[1]!]![0]!.rules![Number(m[2])]!.expression;
          expect(item.map.text).toBe(want);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('the oracle tells a value wholly made by Terraform from a template with text around its interpolations', () => {
    expect(whollyInterpolated('${var.x}')).toBe(true);
    expect(whollyInterpolated('${jsonencode({ a = "}" })}')).toBe(true);
    expect(whollyInterpolated('${var.a} and ${var.b}')).toBe(false);
    expect(whollyInterpolated('http.host eq "${var.h}"')).toBe(false);
    expect(whollyInterpolated('{x}')).toBe(false);
  });

  it('the last element of a multi-line list, as terraform fmt writes it, is checked (it was dropped)', async () => {
    const text = 'resource "cloudflare_ruleset" "fw" {\n  phase = "http_request_firewall_custom"\n  rules = [\n    {\n      action     = "block"\n      expression = "ip.src in {1.1.1.1,}"\n    }\n  ]\n}\n';
    const { diagnostics, checked } = await lintText(text, 'terraform', true, {}, 'fmt.tf');
    expect(checked).toEqual(['cloudflare_ruleset.fw.rules[0].expression']);
    expect(diagnostics.map((d) => d.code)).toContain('comma-in-set');
  });

  it('a file with nothing to check says so, and a value the reader cannot place is an error, never a clean pass', async () => {
    const none = await lintText('variable "x" {\n  default = 1\n}\n', 'terraform', true, {}, 'vars.tf');
    expect(none.diagnostics.map((d) => d.code)).toEqual(['lint-nothing-checked']);
    const walked = await lintText('variable "x" {\n  default = 1\n}\n', 'terraform', false, {}, 'vars.tf');
    expect(walked.diagnostics).toEqual([]);
  });
});

describe('the oracle on jsonencode', () => {
  it('a comment between jsonencode( and its object keeps the filter literal (the layout of a real file)', async () => {
    const text = 'resource "cloudflare_logpush_job" "j" {\n  dataset = "http_requests"\n  filter = jsonencode( # prevents whitespace changes\n    { where = { key = "ClientRequestHost", operator = "eq", value = "a" } }\n  )\n}\n';
    expect(oracleValues(await hclParse('j.tf', text))).toEqual([{ label: 'cloudflare_logpush_job.j.filter', literal: true }]);
    expect((await lintText(text, 'terraform', true, {}, 'j.tf')).checked).toEqual(['cloudflare_logpush_job.j.filter']);
  });
});
