/**
 * The rulesets of a file as the semantic diff compares them: JSON or YAML bodies (create, PUT, a bare
 * array of rules, a rule-management tool's file) and Terraform `cloudflare_ruleset` resources (and the
 * older resources of ./legacy-rulesets.ts, read in the phase that replaced them), each named
 * (the file, the body's label, the Terraform address) and paired with the ruleset of the same name on the
 * other side. `rulekit diff` and the language server's diff lenses read both sides through here, so the
 * two see the same rules.
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { extractJson, extractYaml } from './bodies.js';
import { kindOfPath } from './files.js';
import { LEGACY_RULESET_TYPES } from './legacy-rulesets.js';
import { detectKind } from './run.js';
import { terraformResources, terraformRuleset } from './terraform.js';
import type { BodyItem } from './types.js';

/** A side that cannot be compared (no ruleset, a syntax error, a rule only Terraform knows): the message says where and why. */
export class RulesetSideError extends Error {
  /** File offset the problem is at, when known. */
  readonly offset: number | undefined;
  constructor(message: string, offset?: number) {
    super(message);
    this.name = 'RulesetSideError';
    this.offset = offset;
  }
}

/** One ruleset of a file, with the way back to its rules in the file. */
export interface RulesetSide {
  name: string;
  ruleset: { rules: unknown[]; phase?: unknown };
  /** The file range of the whole ruleset (the body, the resource block). */
  range: Range | undefined;
  /** The file range of rule `index`, when known. */
  rangeOf(index: number): Range | undefined;
}

/** Options of {@link rulesetSides}. */
export interface RulesetSideOptions {
  /** Phase of bodies that name none (a PUT body, a bare array of rules). */
  phase?: string;
  /** Only this ruleset must be readable (a Terraform address): the others' problems do not refuse the file. */
  resource?: string;
  /**
   * Values of Terraform interpolations in rule expressions, by their text (`var.office_cidr`, `local.x`):
   * an expression whose every interpolation has a value is compared with them filled in.
   */
  vars?: Readonly<Record<string, string>>;
}

/** An expression's text with its interpolations filled from `vars`, or the names that have no value. */
function filled(expression: { map: { text: string }; holes: readonly { text: string; at: number }[] }, vars: Readonly<Record<string, string>>): { text: string; unknown: string[] } {
  let text = '';
  let from = 0;
  const unknown: string[] = [];
  for (const h of [...expression.holes].sort((a, b) => a.at - b.at)) {
    const name = h.text.replace(/^[$%]\{~?\s*/, '').replace(/\s*~?\}$/, '');
    text += expression.map.text.slice(from, h.at);
    from = h.at;
    if (Object.hasOwn(vars, name)) text += vars[name];
    else unknown.push(name);
  }
  return { text: text + expression.map.text.slice(from), unknown };
}

/**
 * The rulesets of one file's text, by the kind its name (else its content) says; `shown` names the file
 * in messages (and is the name of a lone JSON or YAML ruleset). Throws {@link RulesetSideError}.
 */
export function rulesetSides(text: string, shown: string, path: string, options: RulesetSideOptions = {}): RulesetSide[] {
  const kind = kindOfPath(path) ?? detectKind(text);
  if (kind === 'terraform') {
    const addresses = ['cloudflare_ruleset', ...Object.keys(LEGACY_RULESET_TYPES)].flatMap((type) => terraformResources(text, type));
    return addresses.map((address) => {
      const rs = terraformRuleset(text, address)!;
      const legacy = LEGACY_RULESET_TYPES[address.slice(0, address.indexOf('.'))];
      const problems = rs.unreadable.map((u) => ({ message: `${u.message} (line ${lineAt(text, u.range.start)})`, at: u.range.start }));
      const rules = rs.rules.map((r) => {
        // Named at the expression itself (its literal, else the value standing for it), not at the rule's opening brace.
        const at = r.expression?.range.start ?? r.expressionNotLiteral?.start ?? r.range.start;
        const fill = r.expression ? filled(r.expression, options.vars ?? {}) : undefined;
        if (!fill) problems.push({ message: `${r.label}.expression is not a literal string (line ${lineAt(text, at)}): its packets are known only to Terraform`, at });
        else if (fill.unknown.length) problems.push({ message: `${r.label}.expression interpolates ${fill.unknown.join(', ')} (line ${lineAt(text, at)}): its packets are known only to Terraform; give ${fill.unknown.map((n) => `--var ${n.replace(/^var\./, '')}=VALUE`).join(' ')}`, at });
        const as = legacy && r.action !== undefined ? legacy.actions[r.action] : undefined;
        if (legacy && !as) problems.push({ message: `${r.label}.action ${JSON.stringify(r.action)} is not one of ${Object.keys(legacy.actions).join(', ')} (line ${lineAt(text, r.range.start)})`, at: r.range.start });
        const rule: Record<string, unknown> = { action: as?.action ?? r.action, expression: fill?.text ?? '' };
        for (const k of ['id', 'ref', 'description', 'enabled'] as const) if (r[k] !== undefined) rule[k] = r[k];
        if (as?.action_parameters) rule['action_parameters'] = as.action_parameters;
        else if (r.skipRuleset !== undefined) rule['action_parameters'] = { ruleset: r.skipRuleset };
        return rule;
      });
      // A rule the diff cannot read would make every region around it a guess: refused, not half-compared.
      if (problems.length && (options.resource === undefined || options.resource === address)) {
        throw new RulesetSideError(`${shown}: ${address}: ${problems.map((p) => p.message).join('; ')}`, problems[0]!.at);
      }
      const phase = legacy?.phase ?? rs.phase;
      return { name: address, ruleset: { rules, ...(phase !== undefined ? { phase } : {}) }, range: rs.range, rangeOf: (i: number) => rs.rules[i]?.range };
    });
  }
  if (kind === 'rules') throw new RulesetSideError(`${shown}: a .rules file holds expressions without actions; give a ruleset (JSON or YAML body, Terraform)`);
  const extracted = kind === 'json' ? extractJson(text, true) : extractYaml(text, true);
  const bad = extracted.diagnostics.find((d: Diagnostic) => d.severity === 'error');
  if (bad) throw new RulesetSideError(`${shown}:${lineAt(text, bad.range?.start)}: ${bad.message}`, bad.range?.start);
  const bodies = extracted.items.filter((i): i is BodyItem => i.kind === 'ruleset');
  if (!bodies.length) throw new RulesetSideError(`${shown}: holds no ruleset (a create or PUT body, an array of rules)`);
  return bodies.map((b) => {
    const value = b.value as { rules: unknown[]; phase?: unknown };
    const phase = typeof value.phase === 'string' ? value.phase : options.phase;
    return {
      name: bodies.length === 1 ? shown : b.label,
      ruleset: { ...value, ...(phase !== undefined ? { phase } : {}) },
      range: b.locate('', 'value') ?? b.locate('/rules', 'value'),
      rangeOf: (i: number) => b.locate(`/rules/${i}`, 'value'),
    };
  });
}

/** The 1-based line of a file offset (1 when unknown). */
function lineAt(text: string, offset: number | undefined): number {
  if (offset === undefined) return 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The rulesets to compare: the one of each file, or those of the same name (one side absent where only the
 * other has it); `resource` picks one by name. Throws {@link RulesetSideError} when neither side has it.
 */
export function pairRulesetSides<S extends { name: string }>(olds: S[], news: S[], resource?: string): [S | undefined, S | undefined][] {
  if (resource !== undefined) {
    const o = olds.find((s) => s.name === resource);
    const n = news.find((s) => s.name === resource);
    if (!o && !n) throw new RulesetSideError(`no ruleset ${resource} on either side (they have ${[...new Set([...olds, ...news].map((s) => s.name))].join(', ')})`);
    return [[o, n]];
  }
  if (olds.length === 1 && news.length === 1) return [[olds[0], news[0]]];
  const names = [...new Set([...olds, ...news].map((s) => s.name))];
  return names.map((name) => [olds.find((s) => s.name === name), news.find((s) => s.name === name)]);
}
