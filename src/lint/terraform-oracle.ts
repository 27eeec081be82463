/**
 * What HashiCorp's HCL parser says a Terraform file holds where rulekit lints: every `expression` of every
 * rule of every `cloudflare_ruleset` (v5 lists, v4 blocks, the `content` of `dynamic "rules"` blocks), of
 * every legacy `cloudflare_filter`, and every `filter` of every `cloudflare_logpush_job`, read from `@cdktf/hcl2json`'s JSON rather than from
 * rulekit's own position-keeping reader. The lint run holds the reader's items against this list, so a
 * value the reader missed is reported instead of passing unread.
 * Pure: JSON in, labels out.
 * @module
 */
import { lintDiagnostic } from './codes.js';
import type { Extracted, LintDiagnostic } from './types.js';

/** A value the parser found, labelled as the extractor labels it. */
export interface OracleValue {
  /** `cloudflare_ruleset.fw.rules[0].expression`, `cloudflare_ruleset.fw.rules[dynamic].expression`, `cloudflare_logpush_job.j.filter`. */
  label: string;
  /** False when the value is wholly a Terraform expression (`var.x`, `"${…}"`): known only when Terraform applies. */
  literal: boolean;
}

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: Json): Json[] => (Array.isArray(v) ? v : isObject(v) ? [v] : []);

/** The resources of a type in hcl2json's output: `[address, body]` for each instance block. */
function resources(parsed: Json, type: string): [string, Record<string, Json>][] {
  const byName = isObject(parsed) && isObject(parsed['resource']) ? parsed['resource'][type] : undefined;
  if (!isObject(byName)) return [];
  const out: [string, Record<string, Json>][] = [];
  for (const [name, bodies] of Object.entries(byName)) for (const b of list(bodies)) if (isObject(b)) out.push([`${type}.${name}`, b]);
  return out;
}

/**
 * True when a string of hcl2json's output is one `${…}` sequence and nothing else: hcl2json writes every
 * value that is not a literal (a reference, a call, a template with only an interpolation) that way.
 */
export function whollyInterpolated(s: string): boolean {
  if (!s.startsWith('${')) return false;
  let depth = 0;
  for (let i = 1; i < s.length; i++) {
    const c = s[i];
    if (c === '"') {
      // A string inside the sequence: its braces do not count.
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i === s.length - 1;
  }
  return false;
}

/** Every rule expression and Logpush filter in hcl2json's reading of a file. */
export function oracleValues(parsed: Json): OracleValue[] {
  const out: OracleValue[] = [];
  const expression = (rule: Json, label: string) => {
    if (!isObject(rule) || !Object.hasOwn(rule, 'expression')) return;
    const e = rule['expression'];
    if (typeof e === 'string') out.push({ label, literal: !whollyInterpolated(e) });
  };
  for (const [address, body] of resources(parsed, 'cloudflare_ruleset')) {
    const rules = body['rules'];
    if (Array.isArray(rules)) rules.forEach((r, i) => expression(r, `${address}.rules[${i}].expression`));
    const dynamic = isObject(body['dynamic']) ? body['dynamic']['rules'] : undefined;
    for (const d of list(dynamic)) for (const c of isObject(d) ? list(d['content']) : []) expression(c, `${address}.rules[dynamic].expression`);
  }
  for (const [address, body] of resources(parsed, 'cloudflare_filter')) expression(body, `${address}.expression`);
  for (const [address, body] of resources(parsed, 'cloudflare_logpush_job')) {
    const f = body['filter'];
    if (typeof f !== 'string' || f.trim() === '') continue;
    // `jsonencode({ … })` of an object written out is read token by token (holes stood in for); of anything else, it is Terraform's.
    const literal = !whollyInterpolated(f) || /^\$\{\s*jsonencode\((?:\s|#[^\n]*\n|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*\{/.test(f);
    out.push({ label: `${address}.filter`, literal });
  }
  return out;
}

/**
 * The values the parser found that the extractor neither read nor reported as not literal, each as a
 * `lint-unread-value` error at its resource: a reader that misses a value must not make a clean pass.
 */
export function unreadValues(oracle: readonly OracleValue[], ex: Extracted, text: string): LintDiagnostic[] {
  const seen = new Map<string, number>();
  const bump = (label: string) => seen.set(label, (seen.get(label) ?? 0) + 1);
  for (const item of ex.items) if (!('value' in item) && !item.slot) bump(item.label);
  for (const d of ex.diagnostics) if (d.code === 'lint-not-literal' && d.where) bump(d.where);
  // A resource reported whole (a phase rulekit does not model, rules that are one Terraform value) accounts for all its values.
  const whole = new Set(ex.diagnostics.filter((d) => (d.code === 'ruleset-unknown-phase' || d.code === 'lint-not-literal') && d.where).map((d) => d.where!.replace(/\.rules$/, '')));
  const out: LintDiagnostic[] = [];
  for (const v of oracle) {
    if (whole.has(v.label.slice(0, v.label.indexOf('.', v.label.indexOf('.') + 1)))) continue;
    const n = seen.get(v.label) ?? 0;
    if (n > 0) {
      seen.set(v.label, n - 1);
      continue;
    }
    const address = v.label.slice(0, v.label.indexOf('.', v.label.indexOf('.') + 1));
    const [type, name] = address.split('.') as [string, string];
    const at = new RegExp(`resource\\s+"${type}"\\s+"${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`).exec(text);
    const range = at ? { start: at.index, end: at.index + at[0].length } : { start: 0, end: Math.min(1, text.length) };
    out.push({
      ...lintDiagnostic('lint-unread-value', `${v.label}: HashiCorp's parser finds this value, but rulekit could not read it from the file, so it was not checked (please report the layout; --severity lint-unread-value=warning lets the run pass)`, range),
      where: v.label,
    });
  }
  return out;
}
