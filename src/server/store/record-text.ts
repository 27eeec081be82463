/**
 * The JSON text of a stored ruleset, and the compact form the stores keep of it.
 *
 * A ruleset's text is what `JSON.stringify` gives of its record, written here from the member tables
 * (members.ts). Most of it is the members of the rules that come from the body (action, expression,
 * description, enabled, action parameters); the server assigns the rest (id, version, last_updated, ref).
 * Automation PUTs the same rules again and again, each time with new ids, so the history rows of a
 * ruleset would repeat the same ~15 KB of rule members version after version. The compact form keeps
 * those members once, as the rule contents (`parts`, named by their SHA-256), and per version only the
 * assigned members: ~0.4 KB instead of ~16 KB for 50 rules. The full text is put together again from
 * both, byte for byte (see {@link expandRuleset}).
 * @module
 */
import { createHash } from 'node:crypto';
import { STORED_RULE_MEMBERS, STORED_RULESET_MEMBERS, type Assigned, type BodyMember } from './members.js';
import type { StoredRule, StoredRuleset } from './types.js';

/**
 * A rule's JSON text without the members the server assigns, as the compact form keeps it: `head`, the
 * body members between assigned ones (`"action":…,"expression":…,"description":…,`), and `tail`, the
 * body members after the last assigned one and the closing brace (`,"enabled":…,"action_parameters":…}`).
 */
export interface RuleParts {
  head: string;
  tail: string;
}

/** A piece of a rule's text: a literal, an assigned member's JSON, or the parts' head or tail. */
type Piece = string | { readonly assigned: keyof Assigned } | { readonly part: keyof RuleParts };

/** The body members of the head, of the tail, and the rule's text as pieces, read from the member table. */
const { HEAD, TAIL, TEMPLATE } = (() => {
  const head: BodyMember[] = [];
  const tail: BodyMember[] = [];
  const template: Piece[] = [];
  let literal = '{';
  let last: 'none' | 'server' | 'head' = 'none';
  STORED_RULE_MEMBERS.forEach((m, i) => {
    if (m.from === 'server') {
      literal += `${last === 'server' ? ',' : ''}"${m.name}":`;
      template.push(literal, { assigned: m.name });
      literal = '';
      last = 'server';
      return;
    }
    const later = STORED_RULE_MEMBERS.slice(i + 1).some((n) => n.from === 'server');
    if (later) {
      // A head member follows an assigned one: the comma between them is the literal's.
      if (last === 'server') literal += ',';
      if (!head.length) template.push(literal, { part: 'head' }), (literal = '');
      head.push(m);
      last = 'head';
    } else {
      if (!tail.length) template.push(literal, { part: 'tail' }), (literal = '');
      tail.push(m);
    }
  });
  if (head.length && tail.length === 0) throw new Error('the compact form needs body members after the last assigned one');
  return { HEAD: head, TAIL: tail, TEMPLATE: template.filter((p) => p !== '') };
})();

const memberText = (m: BodyMember, v: unknown): string => `"${m.name}":${m.type === 'boolean' ? String(v) : JSON.stringify(v)}`;

/** A rule's parts (its text without the assigned members). */
export function ruleParts(rule: StoredRule): RuleParts {
  let head = '';
  for (const m of HEAD) {
    const v = rule[m.name];
    if (v !== undefined) head += `${memberText(m, v)},`;
  }
  let tail = '';
  for (const m of TAIL) {
    const v = rule[m.name];
    if (v !== undefined) tail += `,${memberText(m, v)}`;
  }
  return { head, tail: `${tail}}` };
}

/** A rule's JSON text from its parts and its assigned members, each already JSON text. */
export function ruleText(parts: RuleParts, assigned: Readonly<Record<keyof Assigned, string>>): string {
  let text = '';
  for (const p of TEMPLATE) text += typeof p === 'string' ? p : 'assigned' in p ? assigned[p.assigned] : parts[p.part];
  return text;
}

/** The assigned members in the order of the rule's text (the slots between a rule's {@link Literals}). */
const SLOTS = TEMPLATE.flatMap((p) => (typeof p !== 'string' && 'assigned' in p ? [p.assigned] : []));

/**
 * A rule's text around its assigned members, for its parts: the literals of the template with the parts
 * written in, one more than {@link SLOTS} (`{"id":`, `,"version":`, `,"action":…,"last_updated":`, …):
 * the rule's text is `literals[0] + id + literals[1] + version + …`, 9 pieces instead of 13.
 */
type Literals = readonly string[];

function literalsOf(parts: RuleParts): Literals {
  const literals = [''];
  for (const p of TEMPLATE) {
    if (typeof p !== 'string' && 'assigned' in p) literals.push('');
    else literals[literals.length - 1] += typeof p === 'string' ? p : parts[p.part];
  }
  return literals;
}

/** A ruleset's JSON text up to its rules: `{"id":…,…,"rules":[`. */
export function rulesetHead(meta: Omit<StoredRuleset, 'rules'>): string {
  let text = '{';
  for (const name of STORED_RULESET_MEMBERS) text += name === 'rules' ? '"rules":[' : `"${name}":${JSON.stringify(meta[name])},`;
  return text;
}

/** The text writer: a record's JSON text, `JSON.stringify(record)` byte for byte (test/server/records.test.ts holds them equal). */
export function rulesetJson(record: StoredRuleset): string {
  const pieces = [rulesetHead(record)];
  record.rules.forEach((r, i) => pieces.push(i ? ',' : '', ruleText(ruleParts(r), assignedText(r))));
  pieces.push(']}');
  return pieces.join('');
}

const assignedText = (r: StoredRule): Record<keyof Assigned, string> => ({ id: JSON.stringify(r.id), version: JSON.stringify(r.version), last_updated: JSON.stringify(r.last_updated), ref: JSON.stringify(r.ref) });

/**
 * Rule ids given by a seed: the id of the rule at index `i` of a record is its seed (128 random bits)
 * XOR a fixed mask of `i`, so a history row names its new rules' ids by the seed alone (32 hex digits
 * instead of ~35 bytes per rule). Row size was most of what a group's statement cost PostgreSQL. The ids
 * are as unique as random ones (each word of the mask is a bijection of `i`, so a record's ids differ;
 * seeds are drawn from the CSPRNG), but the ids of one record determine each other: ids are names, not
 * secrets. Stored rows depend on these masks: they never change (a test pins them).
 */
const SEED_KEYS = [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344] as const;

/** Word `w` (0–3, most significant first) of the mask of rule index `i`: MurmurHash3's finalizer, a bijection of 32 bits. */
export function seedMask(i: number, w: number): number {
  let h = (i ^ SEED_KEYS[w]!) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const SEED_TEXT = /^[0-9a-f]{32}$/;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** The id a seed (32 lower-case hex digits) gives the rule at index `i`. */
export function seededId(seed: string, i: number): string {
  return seededIds(seed, i + 1)[i]!;
}

/** The ids a seed gives the rules at indexes 0 to `count - 1`, written as hex into one buffer and cut from one string. */
export function seededIds(seed: string, count: number): string[] {
  if (!SEED_TEXT.test(seed)) throw new Error(`not a rule id seed: ${JSON.stringify(seed)}`);
  const w0 = parseInt(seed.slice(0, 8), 16);
  const w1 = parseInt(seed.slice(8, 16), 16);
  const w2 = parseInt(seed.slice(16, 24), 16);
  const w3 = parseInt(seed.slice(24, 32), 16);
  const hex = Buffer.allocUnsafe(32 * count);
  const write = (p: number, x: number): number => {
    for (let shift = 28; shift >= 0; shift -= 4) hex[p++] = HEX_DIGITS[(x >>> shift) & 15]!;
    return p;
  };
  for (let i = 0, p = 0; i < count; i++) p = write(write(write(write(p, w0 ^ seedMask(i, 0)), w1 ^ seedMask(i, 1)), w2 ^ seedMask(i, 2)), w3 ^ seedMask(i, 3));
  const text = hex.toString('latin1', 0, 32 * count);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) ids[i] = text.slice(32 * i, 32 * i + 32);
  return ids;
}

/** The seed that gives `id` at index `i`, when the id is 32 lower-case hex digits (any such id has one). */
function seedOf(id: string, i: number): string | undefined {
  if (!SEED_TEXT.test(id)) return undefined;
  let seed = '';
  for (let w = 0; w < 4; w++) seed += ((parseInt(id.slice(8 * w, 8 * w + 8), 16) ^ seedMask(i, w)) >>> 0).toString(16).padStart(8, '0');
  return seed;
}

/**
 * What a store writes of a ruleset version it writes compact: `compact` (the ruleset's members, and per
 * rule `[id, version, last_updated, ref]` with null for the ruleset's version and timestamp and for a ref
 * equal to the id, or the id alone when all three are null, or 0 for that id when the record's seed gave
 * it, the seed then following the rules: see {@link seededId}) and the rule contents it refers to
 * (`parts`: JSON `[[head, tail], …]`, and `digest`, its SHA-256 in hex).
 */
export interface CompactForm {
  readonly compact: string;
  readonly parts: string;
  readonly digest: string;
}

/** A record's JSON text and its compact form, made in one pass over its rules. */
export interface RulesetText {
  readonly json: string;
  readonly form: CompactForm;
}

/** A rule's parts, their JSON as the compact form keeps them (`[head, tail]`), and the rule's text around its assigned members. */
interface PartsText extends RuleParts {
  readonly json: string;
  readonly literals: Literals;
}

/**
 * What one store keeps of the texts it wrote, so that a PUT of the same rules again writes none of their
 * members again (one instance per store; it dies with it):
 * - the parts of the rules it met recently, found by their members: automation PUTs the same rules
 *   again and again, whose members records.ts copies from the same parsed body (the body memo's), so a
 *   lookup by the expression's string and a comparison of the other members by identity answers most
 *   rules without writing their members again (the most recent `maxRules` expressions are kept);
 * - per ruleset, the parts of the last record written and their text and SHA-256 (the compact form's
 *   `parts` and `digest`): a record whose rules have the same parts, as every PUT of the same body,
 *   takes them instead of joining ~15 KB again and hashing it (the most recent `maxRulesets`).
 */
export class RecordTexts {
  private readonly byExpression = new Map<string, PartsText & { readonly rule: StoredRule }>();
  private readonly lastById = new Map<string, { readonly parts: readonly PartsText[]; readonly text: string; readonly digest: string }>();

  constructor(private readonly maxRules = 4096, private readonly maxRulesets = 1000) {}

  /** A rule's parts and their text. */
  partsOf(rule: StoredRule): PartsText {
    const hit = this.byExpression.get(rule.expression);
    if (hit && sameMembers(hit.rule, rule)) return hit;
    const entry = { ...partsText(rule), rule };
    if (this.byExpression.size >= this.maxRules) this.byExpression.delete(this.byExpression.keys().next().value!);
    this.byExpression.set(rule.expression, entry);
    return entry;
  }

  /** The compact form's `parts` text and digest of ruleset `id`'s rules with these parts. */
  contentsOf(id: string, parts: readonly PartsText[]): { text: string; digest: string } {
    const last = this.lastById.get(id);
    if (last && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i])) return last;
    const made = { parts, ...contentsText(parts) };
    this.lastById.delete(id);
    this.lastById.set(id, made);
    if (this.lastById.size > this.maxRulesets) this.lastById.delete(this.lastById.keys().next().value!);
    return made;
  }
}

const BODY_NAMES = STORED_RULE_MEMBERS.flatMap((m) => (m.from === 'body' ? [m.name] : []));

/** Whether two rules have the same body members (the same values: strings equal, objects the same). */
function sameMembers(a: StoredRule, b: StoredRule): boolean {
  for (const k of BODY_NAMES) if (a[k] !== b[k]) return false;
  return true;
}

function partsText(rule: StoredRule): PartsText {
  const p = ruleParts(rule);
  return { ...p, json: JSON.stringify([p.head, p.tail]), literals: literalsOf(p) };
}

function contentsText(parts: readonly PartsText[]): { text: string; digest: string } {
  const text = `[${parts.map((p) => p.json).join(',')}]`;
  return { text, digest: createHash('sha256').update(text).digest('hex') };
}

/**
 * The text and compact form of a record, with what a store keeps of the texts it wrote (see
 * {@link RecordTexts}), or none. The seed of its new rules' ids is found from the first rule
 * that has the record's version and timestamp and its id as ref (a rule the write added); every such
 * rule whose id that seed gives is written as 0, when there are two or more.
 */
export function rulesetText(record: StoredRuleset, texts?: RecordTexts): RulesetText {
  const head = rulesetHead(record);
  const version = JSON.stringify(record.version);
  const lastUpdated = JSON.stringify(record.last_updated);
  const rules = record.rules;
  const n = rules.length;
  const isAdded = new Array<boolean>(n);
  let first = -1;
  for (let i = 0; i < n; i++) {
    const r = rules[i]!;
    const a = r.version === record.version && r.last_updated === record.last_updated && r.ref === r.id;
    isAdded[i] = a;
    if (a && first < 0) first = i;
  }
  let seed = first < 0 ? undefined : seedOf(rules[first]!.id, first);
  let seeded = seed === undefined ? undefined : seededIds(seed, n);
  if (seeded) {
    let k = 0;
    for (let i = 0; i < n && k < 2; i++) if (isAdded[i] && seeded[i] === rules[i]!.id) k++;
    if (k < 2) seed = seeded = undefined;
  }
  // Both texts are built with `+=`, one pass, no object per rule but its assigned members: V8's ropes
  // made this ~40% less CPU than pushing pieces into an array and joining them (50-rule records).
  let json = head;
  let compact = head;
  const parts: PartsText[] = new Array(n);
  let zeros = false;
  for (let i = 0; i < n; i++) {
    const r = rules[i]!;
    const p = texts ? texts.partsOf(r) : partsText(r);
    const isSeeded = seeded !== undefined && seeded[i] === r.id;
    const id = isSeeded ? `"${r.id}"` : JSON.stringify(r.id);
    const v = r.version === record.version ? version : JSON.stringify(r.version);
    const t = r.last_updated === record.last_updated ? lastUpdated : JSON.stringify(r.last_updated);
    const ref = r.ref === r.id ? id : JSON.stringify(r.ref);
    const L = p.literals;
    if (i) json += ',', compact += ',';
    const values = { id, version: v, last_updated: t, ref };
    json += L[0]!;
    for (let k = 0; k < SLOTS.length; k++) json += values[SLOTS[k]!] + L[k + 1]!;
    parts[i] = p;
    if (!isAdded[i]) compact += `[${id},${v === version ? 'null' : v},${t === lastUpdated ? 'null' : t},${r.ref === r.id ? 'null' : ref}]`;
    else if (isSeeded) compact += '0', (zeros = true);
    else compact += id;
  }
  json += ']}';
  compact += zeros ? `],"seed":"${seed}"}` : ']}';
  const contents = texts ? texts.contentsOf(record.id, parts) : contentsText(parts);
  return { json, form: { compact, parts: contents.text, digest: contents.digest } };
}

/** The full text of a ruleset version from its compact form and its rules' parts: the text it was made from. */
export function expandRuleset(compact: string, parts: string): string {
  const c = JSON.parse(compact) as Omit<StoredRuleset, 'rules'> & { rules: (0 | string | [string, string | null, string | null, string | null])[]; seed?: string };
  const p = JSON.parse(parts) as [string, string][];
  if (p.length !== c.rules.length) throw new Error(`ruleset ${c.id} version ${c.version}: ${c.rules.length} rules but contents for ${p.length}`);
  const version = JSON.stringify(c.version);
  const lastUpdated = JSON.stringify(c.last_updated);
  const rules = c.rules.map((entry, i) => {
    // 0: the id the row's seed gives this index (seededId throws on a row without a seed).
    const [id, v, t, ref] = entry === 0 ? [seededId(c.seed ?? '', i), null, null, null] : typeof entry === 'string' ? [entry, null, null, null] : entry;
    const quotedId = JSON.stringify(id);
    return ruleText({ head: p[i]![0], tail: p[i]![1] }, { id: quotedId, version: v === null ? version : JSON.stringify(v), last_updated: t === null ? lastUpdated : JSON.stringify(t), ref: ref === null ? quotedId : JSON.stringify(ref) });
  });
  return `${rulesetHead(c)}${rules.join(',')}]}`;
}

/**
 * How a store writes the history row of each record: as its compact form when the record's rule contents
 * come for the second time or more, else as its whole text. An edit's contents, or a new ruleset's, need
 * not come again: one ~16 KB row of text is cheaper than the contents' row and a compact one. The digests
 * of the most recent `max` contents met once are kept; a forgotten one is written whole once more.
 */
export class HistoryRows {
  private readonly seenOnce = new Set<string>();

  constructor(private readonly max = 1024) {}

  /** The compact form to write for this text, or undefined to write its whole JSON. */
  formFor(text: RulesetText): CompactForm | undefined {
    const { form } = text;
    if (this.seenOnce.has(form.digest)) return form;
    this.seenOnce.add(form.digest);
    if (this.seenOnce.size > this.max) this.seenOnce.delete(this.seenOnce.values().next().value!);
    return undefined;
  }
}
