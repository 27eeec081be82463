/**
 * Terraform (`.tf`) extraction: the rule expressions of `cloudflare_ruleset` resources and the `filter` of
 * `cloudflare_logpush_job` resources, in both provider shapes — v5's `rules = [{ action, expression, … }]`
 * and v4's `rules { … }` blocks (and `dynamic "rules" { content { … } }`) — with a filter written as a
 * JSON string, a heredoc or `jsonencode({ … })`. Each becomes a {@link TextItem} whose units map back to
 * the `.tf` text. Pure: text in, items out (the Node runner checks the syntax with `@cdktf/hcl2json`).
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { actionParameterProblems, actionProblem, CREDENTIAL_CHECK, kindPhaseProblems, PHASE_CATALOG, phaseInfo, rulesetDiagnostic, type ValueSlot } from '../ruleset/index.js';
import { hclHeredoc, hclQuoted } from './encode.js';
import { attribute, entry, literalString, parseHcl, type HclBlock, type HclBody, type HclTemplate, type HclValue, type Interpolation } from './hcl.js';
import { OffsetMap } from './offset-map.js';
import { lintDiagnostic } from './codes.js';
import type { Extracted, TextItem } from './types.js';

/** Ruleset phases whose expressions rulekit checks, with the actions each phase has: the catalog of phases. */
export const CHECKED_PHASES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(Object.entries(PHASE_CATALOG).map(([name, p]) => [name, p.actions]));

/** Extract the expressions and filters of a Terraform file. */
export function extractTerraform(text: string): Extracted {
  const out: Extracted = { kind: 'terraform', items: [], diagnostics: [] };
  const file = parseHcl(text);
  for (const block of file.blocks) {
    if (block.type !== 'resource' || block.labels.length < 2) continue;
    const [type, name] = block.labels as [string, string];
    if (type === 'cloudflare_ruleset') ruleset(block, `${type}.${name}`, out);
    else if (type === 'cloudflare_logpush_job') logpushJob(block, `${type}.${name}`, out);
    else if (type === 'cloudflare_filter') legacyFilter(block, `${type}.${name}`, out);
  }
  return out;
}

function ruleset(block: HclBlock, address: string, out: Extracted): void {
  const phaseAttr = attribute(block.body, 'phase');
  const kindAttr = attribute(block.body, 'kind');
  const phase = literalString(phaseAttr?.value);
  // The resource names its owner by account_id or zone_id: that is the level it is created at.
  const scope = attribute(block.body, 'account_id') ? 'account' : attribute(block.body, 'zone_id') ? 'zone' : undefined;
  // Kind, phase and level: the checks validation makes of a JSON body (phases.ts), at the HCL values.
  for (const p of kindPhaseProblems(literalString(kindAttr?.value), phase, scope)) {
    const value = (p.at === 'kind' ? kindAttr : phaseAttr)!.value;
    const fix = p.replacement ? { title: `replace with "${p.replacement}"`, edits: [{ range: value.range, newText: `"${p.replacement}"` }] } : undefined;
    // An unknown phase stands for the whole resource: its rules are not read (terraform-oracle.ts counts them reported).
    out.diagnostics.push({ ...filed(rulesetDiagnostic(p.code, `${address}: ${p.message}`, '', { range: value.range, fix })), ...(p.code === 'ruleset-unknown-phase' ? { where: address } : {}) });
  }
  // A phase the catalog does not have was reported (ruleset-unknown-phase): which fields and actions its
  // rules have is not known, so they are not checked.
  if (phase !== undefined && !phaseInfo(phase)) return;
  const knownPhase = phase;
  const rules: { body: (key: string) => HclValue | undefined; node: HclNode; label: string; source?: (string | number)[] }[] = [];
  const at = ['resource', 'cloudflare_ruleset', address.slice(address.indexOf('.') + 1), 0, 'rules'];
  const v5 = attribute(block.body, 'rules');
  if (v5?.value.type === 'tuple') {
    v5.value.items.forEach((item, i) => {
      if (item.type === 'object') rules.push({ body: (k) => entry(item, k)?.value, node: { value: item }, label: `${address}.rules[${i}]`, source: [...at, i] });
      else notLiteral(out, `${address}.rules[${i}]`, `${address}.rules[${i}] is not a rule object written out (${describe(item)}); it was not checked`, item.range);
    });
  } else if (v5) {
    notLiteral(out, `${address}.rules`, `${address}.rules is not a list of rule objects written out (${describe(v5.value)}); its rules were not checked`, v5.value.range);
  }
  let i = 0;
  const fromBody = (b: HclBody, label: string, source?: (string | number)[]) => rules.push({ body: (k) => attribute(b, k)?.value, node: { body: b }, label, source });
  for (const b of block.body.blocks) {
    if (b.type === 'rules') {
      fromBody(b.body, `${address}.rules[${i}]`, [...at, i]);
      i++;
    }
    else if (b.type === 'dynamic' && b.labels[0] === 'rules') {
      const content = b.body.blocks.find((c) => c.type === 'content');
      if (content) fromBody(content.body, `${address}.rules[dynamic]`);
    }
  }
  for (const rule of rules) {
    const action = rule.body('action');
    const actionName = literalString(action);
    const problem = actionName === undefined ? undefined : actionProblem(actionName, knownPhase);
    if (problem) {
      const guess = problem.replacement;
      out.diagnostics.push(
        lintDiagnostic('lint-unknown-action', `${rule.label}: ${problem.message}`, action!.range, {
          fix: guess ? { title: `replace with "${guess}"`, edits: [{ range: action!.range, newText: `"${guess}"` }] } : undefined,
        }),
      );
    } else if (actionName !== undefined && knownPhase !== undefined) parameterShape(rule.node, actionName, knownPhase, rule.label, out);
    credentialCheck(rule.node, actionName, action, rule.label, out);
    // Value expressions are read with the HTTP fields: only in a phase known to read them.
    if (knownPhase !== undefined && PHASE_CATALOG[knownPhase as keyof typeof PHASE_CATALOG].fields === 'http') {
      for (const v of valueExpressions(rule.node, rule.label)) {
        const item = templateItem(v.value, 'expression', v.label, out);
        if (item) out.items.push({ ...item, phase: knownPhase, slot: v.slot });
      }
    }
    const expression = rule.body('expression');
    if (!expression) continue;
    const item = templateItem(expression, 'expression', `${rule.label}.expression`, out);
    if (item) {
      if (knownPhase !== undefined) item.phase = knownPhase;
      if (rule.source) item.source = [...rule.source, 'expression'];
      out.items.push(item);
    }
  }
}

/** A rule or a part of one: an object value (provider v5) or a block body (v4). */
type HclNode = { value: HclValue } | { body: HclBody };

/** The children of a node under a key: an attribute or object entry, and (v4) every block of that type. */
function children(n: HclNode, key: string): { node: HclNode; range: Range }[] {
  if ('value' in n) {
    const e = entry(n.value, key);
    return e ? [{ node: { value: e.value }, range: e.value.range }] : [];
  }
  const out: { node: HclNode; range: Range }[] = [];
  const a = attribute(n.body, key);
  if (a) out.push({ node: { value: a.value }, range: a.value.range });
  for (const b of n.body.blocks) if (b.type === key && b.labels.length === 0) out.push({ node: { body: b.body }, range: b.range });
  return out;
}

/** The node at a path of keys (the first child at each step). */
function at(n: HclNode | undefined, ...path: string[]): HclNode | undefined {
  for (const k of path) n = n && children(n, k)[0]?.node;
  return n;
}

/**
 * The value expressions of a Terraform rule, as {@link ruleValueExpressions} lists them for a JSON rule:
 * `action_parameters` uri path/query, headers (v5: a map by name; v4: `headers { name = … }` blocks),
 * `from_value.target_url`, `ratelimit.counting_expression`, `exposed_credential_check`.
 */
function valueExpressions(rule: HclNode, label: string): { value: HclValue; label: string; slot: ValueSlot }[] {
  const out: { value: HclValue; label: string; slot: ValueSlot }[] = [];
  const add = (n: HclNode | undefined, where: string, slot: ValueSlot) => {
    if (n && 'value' in n && !(slot === 'counting' && literalString(n.value) === '')) out.push({ value: n.value, label: `${label}.${where}`, slot });
  };
  const params = at(rule, 'action_parameters');
  add(at(params, 'uri', 'path', 'expression'), 'action_parameters.uri.path.expression', 'rewrite');
  add(at(params, 'uri', 'query', 'expression'), 'action_parameters.uri.query.expression', 'rewrite');
  add(at(params, 'from_value', 'target_url', 'expression'), 'action_parameters.from_value.target_url.expression', 'rewrite');
  for (const h of params ? children(params, 'headers') : []) {
    if ('value' in h.node && h.node.value.type === 'object') {
      for (const e of h.node.value.entries) add(at({ value: e.value }, 'expression'), `action_parameters.headers[${JSON.stringify(e.key)}].expression`, 'rewrite');
    } else if ('body' in h.node) {
      const name = literalString(attribute(h.node.body, 'name')?.value) ?? '?';
      add(at(h.node, 'expression'), `action_parameters.headers[${JSON.stringify(name)}].expression`, 'rewrite');
    }
  }
  add(at(rule, 'ratelimit', 'counting_expression'), 'ratelimit.counting_expression', 'counting');
  for (const p of CREDENTIAL_CHECK.properties) add(at(rule, 'exposed_credential_check', p), `exposed_credential_check.${p}`, 'credential');
  return out;
}

/** A value of the file that only Terraform knows (a variable, a call, a template with interpolations). */
const OPAQUE = new (class Opaque {})();

/**
 * An HCL value as the JSON Terraform would send, with the range of each part by its path (joined by
 * NUL); what only Terraform can know is {@link OPAQUE}.
 */
function jsonOf(v: HclValue, path: string, ranges: Map<string, { value: Range; key?: Range }>): unknown {
  switch (v.type) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const e of v.entries) {
        const p = `${path}\0${e.key}`;
        ranges.set(p, { value: e.value.range, key: e.keyRange });
        o[e.key] = jsonOf(e.value, p, ranges);
      }
      return o;
    }
    case 'tuple':
      return v.items.map((item, i) => {
        const p = `${path}\0${i}`;
        ranges.set(p, { value: item.range });
        return jsonOf(item, p, ranges);
      });
    case 'string':
    case 'heredoc':
      return v.interpolations.length === 0 ? v.map.text : OPAQUE;
    case 'other': {
      if (/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(v.text)) return Number(v.text);
      if (v.text === 'true' || v.text === 'false') return v.text === 'true';
      return v.text === 'null' ? undefined : OPAQUE;
    }
    default:
      return OPAQUE;
  }
}

/**
 * A rule's `action_parameters` against its action's shape, as validation checks a JSON rule (parameters.ts):
 * provider v5's object (`action_parameters = { … }`, the API's members by the API's names), reported at
 * the HCL key or value. v4's blocks name and nest some members otherwise (`headers { name = … }`): they
 * are not checked.
 */
function parameterShape(rule: HclNode, action: string, phase: string, label: string, out: Extracted): void {
  const found = children(rule, 'action_parameters')[0];
  if (found && !('value' in found.node)) return; // a v4 block
  const ranges = new Map<string, { value: Range; key?: Range }>();
  const params = found && 'value' in found.node ? jsonOf(found.node.value, '', ranges) : undefined;
  if (params === OPAQUE) return;
  const ruleRange = 'value' in rule ? rule.value.range : undefined;
  const network = phaseInfo(phase)?.fields === 'network';
  for (const p of actionParameterProblems(action, params, { opaque: (v) => v === OPAQUE, network })) {
    const at = p.atRule ? undefined : ranges.get(p.path.map((k) => `\0${k}`).join(''));
    const range = p.key ? (at?.key ?? at?.value) : (at?.value ?? (p.atRule ? ruleRange : found?.range) ?? ruleRange);
    if (!range) continue;
    out.diagnostics.push(filed(rulesetDiagnostic(p.code, `${label}: ${p.message}`, '', { range, data: p.data, fix: p.fix ? { title: p.fix, edits: [] } : undefined })));
  }
}

/** An `exposed_credential_check` with both its expressions, on a rule with one of its actions (as validation checks a JSON rule). */
function credentialCheck(rule: HclNode, actionName: string | undefined, action: HclValue | undefined, label: string, out: Extracted): void {
  const found = children(rule, 'exposed_credential_check')[0];
  if (!found) return;
  const ecc = found.node;
  if ('value' in ecc && ecc.value.type !== 'object') return;
  for (const p of CREDENTIAL_CHECK.properties) {
    if (!at(ecc, p)) out.diagnostics.push(filed(rulesetDiagnostic('ruleset-missing-member', `${label}: exposed_credential_check needs ${p}`, '', { range: found.range, data: { member: p } })));
  }
  if (actionName !== undefined && !CREDENTIAL_CHECK.actions.includes(actionName)) {
    out.diagnostics.push(
      filed(rulesetDiagnostic('rule-credential-check-action', `${label}: exposed_credential_check goes with the actions ${CREDENTIAL_CHECK.actions.join(', ')}; not with ${actionName}`, '', {
        range: action!.range,
        data: { action: actionName, actions: [...CREDENTIAL_CHECK.actions] },
        fix: { title: 'set action to "log" (the docs recommend rewrite or log)', edits: [{ range: action!.range, newText: '"log"' }] },
      })),
    );
  }
}

/** A ruleset diagnostic in file coordinates: its range is in the .tf text, it has no JSON pointer. */
function filed(d: Diagnostic): Diagnostic {
  delete d.pointer;
  return d;
}

/**
 * A `cloudflare_filter` (provider v4's legacy Firewall Rules, and cf-terraforming's output of them): its
 * `expression` is in the Rules language of the HTTP phases, checked as a custom rule's would be.
 */
function legacyFilter(block: HclBlock, address: string, out: Extracted): void {
  const e = attribute(block.body, 'expression');
  if (!e) return;
  const item = templateItem(e.value, 'expression', `${address}.expression`, out);
  if (!item) return;
  item.phase = 'http_request_firewall_custom';
  item.source = ['resource', 'cloudflare_filter', address.slice(address.indexOf('.') + 1), 0, 'expression'];
  out.items.push(item);
}

function logpushJob(block: HclBlock, address: string, out: Extracted): void {
  const dataset = literalString(attribute(block.body, 'dataset')?.value);
  // The resource names its owner by zone_id or account_id: that is the job's scope.
  const scope = attribute(block.body, 'account_id') ? 'account' : attribute(block.body, 'zone_id') ? 'zone' : undefined;
  const filter = attribute(block.body, 'filter');
  if (!filter) return;
  const label = `${address}.filter`;
  const v = filter.value;
  let item: TextItem | undefined;
  if (v.type === 'call' && v.name === 'jsonencode' && v.args.length === 1 && v.args[0]!.type === 'object') item = jsonencodeItem(v.args[0]!, label, v.range);
  else {
    item = templateItem(v, 'filter', label, out);
    if (item) item.source = ['resource', 'cloudflare_logpush_job', address.slice(address.indexOf('.') + 1), 0, 'filter'];
  }
  if (!item) return;
  if (item.kind === 'filter' && item.map.text.trim() === '' && item.holes.length === 0) return; // no filter
  if (dataset !== undefined) item.dataset = dataset;
  if (scope) item.scope = scope;
  out.items.push(item);
}

/** An item of a string or heredoc value; other values are noted as not checked. */
function templateItem(v: HclValue, kind: TextItem['kind'], label: string, out: Extracted): TextItem | undefined {
  if ((v.type === 'string' || v.type === 'heredoc') && !(v.interpolations.length === 1 && v.map.text === '')) {
    return { kind, label, map: v.map, holes: v.interpolations, encoder: v.type === 'string' ? hclQuoted : hclHeredoc, range: v.range };
  }
  if (v.type === 'other' && v.text === 'null') return undefined;
  notLiteral(out, label, `${label} is not a literal string (${describe(v)}); it was not checked`, v.range);
  return undefined;
}

/** A value that only Terraform can know (a variable, a call, a `for`), reported where it is, under the label of the value it stands for. */
function notLiteral(out: Extracted, label: string, message: string, range: Range): void {
  out.diagnostics.push({ ...lintDiagnostic('lint-not-literal', message, range), where: label });
}

/** A short description of a value that is not a literal, for messages. */
function describe(v: HclValue): string {
  if (v.type === 'call') return `${v.name}(…)`;
  if ((v.type === 'string' || v.type === 'heredoc') && v.interpolations.length === 1) return v.interpolations[0]!.text.length > 40 ? `${v.interpolations[0]!.text.slice(0, 39)}…` : v.interpolations[0]!.text;
  if (v.type === 'other') return v.text.length > 40 ? `${v.text.slice(0, 39)}…` : v.text;
  return v.type;
}

/**
 * A filter written as `jsonencode({...})`: the JSON text Terraform would send, built here with each token
 * mapped to the HCL it came from. Values that are not literals (variables, calls, templates with
 * interpolations) become holes, stood in for by the checker.
 */
function jsonencodeItem(arg: HclValue, label: string, range: Range): TextItem {
  const map = new OffsetMap();
  const holes: Interpolation[] = [];
  const values: { json: Range; hcl: HclValue }[] = [];
  const emit = (v: HclValue): void => {
    const start = map.length;
    switch (v.type) {
      case 'object': {
        map.push('{', v.range.start, v.range.start + 1);
        v.entries.forEach((e, i) => {
          if (i) map.push(',', e.keyRange.start, e.keyRange.start);
          map.push(JSON.stringify(e.key), e.keyRange.start, e.keyRange.end);
          map.push(':', e.keyRange.end, e.keyRange.end);
          emit(e.value);
        });
        map.push('}', v.range.end - 1, v.range.end);
        break;
      }
      case 'tuple': {
        map.push('[', v.range.start, v.range.start + 1);
        v.items.forEach((item, i) => {
          if (i) map.push(',', item.range.start, item.range.start);
          emit(item);
        });
        map.push(']', v.range.end - 1, v.range.end);
        break;
      }
      case 'string':
      case 'heredoc':
        if (v.interpolations.length === 0) {
          map.push(JSON.stringify(v.map.text), v.range.start, v.range.end);
          break;
        }
        hole(v);
        break;
      case 'other':
        if (/^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/.test(v.text)) {
          map.push(v.text, v.range.start, v.range.end);
          break;
        }
        hole(v);
        break;
      default:
        hole(v);
    }
    values.push({ json: { start, end: map.length }, hcl: v });
  };
  const hole = (v: HclValue) => {
    holes.push({ at: map.length, range: v.range, text: sourceText(v) });
    map.after = v.range.end;
  };
  emit(arg);
  return {
    kind: 'filter',
    label,
    map,
    holes,
    range,
    synthetic: {
      replace: (r, json) => {
        const found = values.find((x) => x.json.start === r.start && x.json.end === r.end);
        if (!found) return undefined;
        const t = found.hcl.type;
        if (t !== 'string' && t !== 'heredoc' && t !== 'other') return undefined;
        const newText = hclLiteral(json);
        return newText === undefined ? undefined : { range: found.hcl.range, newText };
      },
    },
  };
}

function sourceText(v: HclValue): string {
  return v.type === 'other' ? v.text : v.type === 'string' || v.type === 'heredoc' ? (v as HclTemplate).map.text : v.type === 'call' ? `${v.name}(…)` : v.type;
}

/** The HCL literal of a JSON value (strings quoted and escaped, arrays as tuples); undefined for objects. */
export function hclLiteral(json: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  const lit = (x: unknown): string | undefined => {
    if (typeof x === 'string') return `"${hclQuoted(x)}"`;
    if (typeof x === 'number' || typeof x === 'boolean' || x === null) return String(x);
    if (Array.isArray(x)) {
      const parts = x.map(lit);
      return parts.includes(undefined) ? undefined : `[${parts.join(', ')}]`;
    }
    return undefined;
  };
  return lit(v);
}

/** A rule of a `cloudflare_ruleset` resource, as {@link terraformRuleset} reads it for simulation. */
export interface TerraformRule {
  /** `cloudflare_ruleset.fw.rules[1]`. */
  label: string;
  /** The rule's object or block in the file. */
  range: Range;
  action?: string;
  /** The expression: decoded text, its interpolations and its literal in the file; absent when not a literal string. */
  expression?: { map: OffsetMap; holes: Interpolation[]; range: Range };
  /** Where the expression is when it is not a literal string (a variable, a call). */
  expressionNotLiteral?: Range;
  description?: string;
  ref?: string;
  id?: string;
  enabled?: boolean;
  /** `action_parameters.ruleset` (`current` makes a skip rule end evaluation). */
  skipRuleset?: string;
}

/** A `cloudflare_ruleset` resource read for simulation; `rules` undefined when they are not written out. */
export interface TerraformRuleset {
  address: string;
  range: Range;
  phase?: string;
  rules: TerraformRule[];
  /** Why some rules could not be read (`dynamic "rules"`, rules from a variable), with where. */
  unreadable: { message: string; range: Range }[];
}

/** The addresses (`type.name`) of the resources of a type in a Terraform file. */
export function terraformResources(text: string, type: string): string[] {
  return parseHcl(text).blocks.filter((b) => b.type === 'resource' && b.labels[0] === type && b.labels.length >= 2).map((b) => `${type}.${b.labels[1]}`);
}

/**
 * The rules of one `cloudflare_ruleset` resource (by address) with their literal attributes, for running
 * them: both provider shapes, positions into the file. Undefined when no such resource is in the text.
 */
export function terraformRuleset(text: string, address: string): TerraformRuleset | undefined {
  const dot = address.indexOf('.');
  const block = parseHcl(text).blocks.find((b) => b.type === 'resource' && b.labels[0] === address.slice(0, dot) && b.labels[1] === address.slice(dot + 1));
  if (!block) return undefined;
  const out: TerraformRuleset = { address, range: block.range, phase: literalString(attribute(block.body, 'phase')?.value), rules: [], unreadable: [] };
  const read = (get: (k: string) => HclValue | undefined, nested: HclBody | undefined, label: string, range: Range): TerraformRule => {
    const rule: TerraformRule = { label, range };
    const str = (k: string) => literalString(get(k));
    rule.action = str('action');
    rule.description = str('description');
    rule.ref = str('ref');
    rule.id = str('id');
    const enabled = get('enabled');
    if (enabled?.type === 'other' && /^(true|false)$/.test(enabled.text)) rule.enabled = enabled.text === 'true';
    const params = get('action_parameters');
    const paramsBlock = nested?.blocks.find((b) => b.type === 'action_parameters');
    rule.skipRuleset = params ? literalString(entry(params, 'ruleset')?.value) : paramsBlock ? literalString(attribute(paramsBlock.body, 'ruleset')?.value) : undefined;
    const e = get('expression');
    if (e?.type === 'string' || e?.type === 'heredoc') rule.expression = { map: e.map, holes: e.interpolations, range: e.range };
    else if (e) rule.expressionNotLiteral = e.range;
    return rule;
  };
  const v5 = attribute(block.body, 'rules');
  if (v5?.value.type === 'tuple') {
    v5.value.items.forEach((item, i) => {
      if (item.type === 'object') out.rules.push(read((k) => entry(item, k)?.value, undefined, `${address}.rules[${i}]`, item.range));
      else out.unreadable.push({ message: `${address}.rules[${i}] is not a rule object written out`, range: item.range });
    });
  } else if (v5) {
    out.unreadable.push({ message: `${address}.rules is not a list of rule objects written out`, range: v5.value.range });
  }
  for (const b of block.body.blocks) {
    if (b.type === 'rules') out.rules.push(read((k) => attribute(b.body, k)?.value, b.body, `${address}.rules[${out.rules.length}]`, b.range));
    else if (b.type === 'dynamic' && b.labels[0] === 'rules') out.unreadable.push({ message: `${address} has dynamic "rules": their number and values are known only to Terraform`, range: b.range });
  }
  return out;
}
