/**
 * Positions map back exactly: an expression is written into a Terraform string, a heredoc, a JSON string
 * or a YAML double-quoted scalar with random escapes (and a Terraform interpolation before the offence);
 * the range lint reports for the offending `AND` must cover exactly the characters that spell it in the
 * file, whatever escapes they are written with.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkExtracted, extractJson, extractTerraform, extractYaml, type LintDiagnostic } from '../../src/lint/index.js';

/** An encoding of one character in a quoted HCL string. */
function hclChar(c: string, how: number): string {
  if (c === '"') return how % 2 ? '\\"' : '\\u0022';
  if (c === '\\') return '\\\\';
  const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
  return how === 1 ? `\\u${hex}` : how === 2 ? `\\U0000${hex}` : c;
}

function jsonChar(c: string, how: number): string {
  if (c === '"') return how % 2 ? '\\"' : '\\u0022';
  if (c === '\\') return '\\\\';
  return how === 1 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : how === 2 && c === '/' ? '\\/' : c;
}

function yamlChar(c: string, how: number): string {
  if (c === '"') return how % 2 ? '\\"' : '\\x22';
  if (c === '\\') return '\\\\';
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return how === 1 ? `\\x${hex}` : how === 2 ? `\\u00${hex}` : c;
}

/** Encode `before AND after`, each character its own way; returns the text and where `AND` sits in it. */
function encode(before: string, after: string, hows: number[], enc: (c: string, how: number) => string): { text: string; and: { start: number; end: number } } {
  let i = 0;
  const e = (s: string) => [...s].map((c) => enc(c, hows[i++ % hows.length]!)).join('');
  const a = e(before + ' ');
  const k = e('AND');
  return { text: a + k + e(' ' + after), and: { start: a.length, end: a.length + k.length } };
}

const BEFORE = ['tcp.dstport == 22', 'ip.proto == "tcp"', 'ip.src in {10.0.0.0/8 192.0.2.1}', 'tcp.flags.syn'];
const AFTER = ['ip.src.country in {"BR" "US"}', 'udp.dstport in {53 5353}', 'not tcp.flags.ack', 'ip.ttl < 64'];

const offence = (ds: LintDiagnostic[]) => {
  const found = ds.filter((d) => d.code === 'uppercase-keyword');
  expect(found, JSON.stringify(ds)).toHaveLength(1);
  return found[0]!.range!;
};

const args = fc.tuple(fc.constantFrom(...BEFORE), fc.constantFrom(...AFTER), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 40 }));

describe('lint positions map back into the file', () => {
  it('Terraform quoted strings with random escapes (and an interpolation before the offence)', () => {
    fc.assert(
      fc.property(args, fc.boolean(), fc.string({ maxLength: 5, unit: fc.constantFrom(' ', '\t') }), ([before, after, hows], interpolate, pad) => {
        const enc = encode(before, after, hows, hclChar);
        const lead = interpolate ? 'tcp.dstport in {${var.ports}} and ' : '';
        const head = `resource "cloudflare_ruleset" "r" {\n  phase = "magic_transit"\n  rules = [{\n    action =${pad}"block"\n    expression =${pad}"${lead}`;
        const tf = `${head}${enc.text}"\n  }]\n}\n`;
        const r = offence(checkExtracted(extractTerraform(tf)));
        expect({ start: r.start, end: r.end }).toEqual({ start: head.length + enc.and.start, end: head.length + enc.and.end });
      }),
      { numRuns: 300 },
    );
  });

  it('Terraform flush heredocs (<<-) with random indentation', () => {
    fc.assert(
      fc.property(fc.constantFrom(...BEFORE), fc.constantFrom(...AFTER), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), (before, after, indent, extra, dollar) => {
        const ind = ' '.repeat(indent);
        const first = `${ind}${before}${dollar ? ' and ip.src in {${var.cidr}}' : ''}\n`;
        const second = `${ind}${' '.repeat(extra)}AND ${after}\n`;
        const head = `resource "cloudflare_ruleset" "r" {\n  rules {\n    action = "block"\n    expression = <<-EOT\n`;
        const tf = `${head}${first}${second}${ind}EOT\n  }\n}\n`;
        const r = offence(checkExtracted(extractTerraform(tf)));
        const at = head.length + first.length + indent + extra;
        expect(tf.slice(r.start, r.end)).toBe('AND');
        expect(r.start).toBe(at);
      }),
      { numRuns: 200 },
    );
  });

  it('JSON strings with random escapes', () => {
    fc.assert(
      fc.property(args, ([before, after, hows]) => {
        const enc = encode(before, after, hows, jsonChar);
        const head = '{"name": "x", "kind": "root", "phase": "network_transit", "rules": [\n  {"action": "block", "expression": "';
        const text = `${head}${enc.text}"}\n]}\n`;
        expect(JSON.parse(text).rules[0].expression).toBe(`${before} AND ${after}`);
        const r = offence(checkExtracted(extractJson(text)));
        expect(r).toEqual({ start: head.length + enc.and.start, end: head.length + enc.and.end });
      }),
      { numRuns: 300 },
    );
  });

  it('YAML double-quoted scalars with random escapes', () => {
    fc.assert(
      fc.property(args, ([before, after, hows]) => {
        const enc = encode(before, after, hows, yamlChar);
        const head = 'rules:\n  - action: block\n    expression: "';
        const text = `${head}${enc.text}"\n`;
        const r = offence(checkExtracted(extractYaml(text)));
        expect(r).toEqual({ start: head.length + enc.and.start, end: head.length + enc.and.end });
      }),
      { numRuns: 300 },
    );
  });

  it('jsonencode filters: a misspelt operator points at its HCL string', () => {
    const tf = 'resource "cloudflare_logpush_job" "j" {\n  dataset = "http_requests"\n  filter = jsonencode({ where = { key = "EdgeResponseStatus", operator = "gte", value = 500 } })\n}\n';
    const [d] = checkExtracted(extractTerraform(tf));
    expect(d!.code).toBe('filter-misspelt-operator');
    expect(tf.slice(d!.range!.start, d!.range!.end)).toBe('"gte"');
    expect(d!.fix!.edits).toEqual([{ range: d!.range, newText: '"geq"' }]);
  });
  it('a cloudflare_logpush_job filter is checked against the dataset of its owner\'s scope (zone_id or account_id)', () => {
    const job = (owner: string) => `resource "cloudflare_logpush_job" "j" {\n  ${owner} = "x"\n  dataset = "firewall_events"\n  filter = jsonencode({ where = { key = "ZoneName", operator = "eq", value = "example.com" } })\n}\n`;
    expect(checkExtracted(extractTerraform(job('account_id')))).toEqual([]);
    expect(checkExtracted(extractTerraform(job('zone_id'))).map((d) => d.code)).toEqual(['filter-unknown-field']);
  });
});
