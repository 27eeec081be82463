/**
 * The JSON text of a stored ruleset, cut from parts, and the compact form the SQLite store keeps of it.
 *
 * A ruleset's text is what `JSON.stringify` gives of its record (keys in the order the records are built:
 * see records.ts). Most of it is the members of the rules that come from the body (action, expression,
 * description, enabled, action parameters); the server assigns the rest (id, version, last_updated, ref).
 * Automation PUTs the same rules again and again, each time with new ids, so the history rows of a
 * ruleset repeat the same ~15 KB of rule members version after version. The compact form keeps those
 * members once, as the rule contents (`parts`, named by their SHA-256), and per version only the assigned
 * members: ~2.5 KB instead of ~16 KB for 50 rules. The full text is put together again from both, byte for
 * byte (see {@link expandRuleset}).
 * @module
 */
import { createHash } from 'node:crypto';
import type { StoredRuleset } from './types.js';

/**
 * A rule's JSON text around the members the server assigns: `head` is `"action":…,"expression":…,
 * "description":…,` and `tail` is `,"enabled":…}` (with `,"action_parameters":…` before the brace).
 */
export interface RuleParts {
  head: string;
  tail: string;
}

/**
 * The members the server assigned to a record's rules, each as a JSON string (quoted and escaped), in
 * arrays by rule rather than in an object per rule (50 objects of a 50-rule PUT, alive until its answer).
 * A rule's version and timestamp are the record's unless `kept` has the ones it keeps (a rule a PUT sends
 * back unchanged); its ref is `refs[i]`, or its id when there is no `refs`.
 */
export interface AssignedTexts {
  readonly ids: readonly string[];
  readonly refs: readonly string[] | undefined;
  readonly kept: readonly (KeptText | undefined)[] | undefined;
  /** The seed (32 hex digits) of the ids given to the record's new rules, when a seed gave them (see {@link seededId}). */
  readonly seed?: string | undefined;
  /** Which rules' ids the seed gave (1), by index: undefined when it gave every rule's (or there is no seed). */
  readonly fromSeed?: Uint8Array | undefined;
}

/**
 * Rule ids given by a seed: the id of the rule at index `i` of a record is its seed (128 random bits)
 * XOR a fixed mask of `i`, so a history row names its new rules' ids by the seed alone (32 hex digits
 * instead of ~35 bytes per rule: ~1.9 KB → ~0.35 KB per row of 50 rules). Row size was most of what a
 * group's statement cost PostgreSQL: standalone, groups of 21 rows of ~2.4 KB against ~0.26 KB committed
 * ~400–440 against ~680 times a second on a CPU shared with a load generator; in the server's bench,
 * PostgreSQL's CPU per PUT went from ~56 to ~33 µs and its WAL per PUT from ~2.4 to ~0.6 KB. The ids
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

/** The id a seed (32 lower-case hex digits) gives the rule at index `i`. */
export function seededId(seed: string, i: number): string {
  if (!SEED_TEXT.test(seed)) throw new Error(`not a rule id seed: ${JSON.stringify(seed)}`);
  let id = '';
  for (let w = 0; w < 4; w++) id += ((parseInt(seed.slice(8 * w, 8 * w + 8), 16) ^ seedMask(i, w)) >>> 0).toString(16).padStart(8, '0');
  return id;
}

/** The version and timestamp a rule keeps, as JSON strings. */
export interface KeptText {
  readonly version: string;
  readonly lastUpdated: string;
}

/** What the text of a rule is cut from besides its assigned members. */
export interface PartsOf {
  readonly parts: RuleParts;
}

/** A rule's JSON text from its parts and its assigned members as JSON strings. */
export function ruleText(parts: RuleParts, id: string, version: string, lastUpdated: string, ref: string): string {
  return `{"id":${id},"version":${version},${parts.head}"last_updated":${lastUpdated},"ref":${ref}${parts.tail}`;
}

/**
 * A ruleset's JSON text from its members and its rules' parts and assigned members: {@link rulesetText} of
 * their {@link ruleText}s, byte for byte, made by one join of all the pieces. Each rule's text made
 * apart was a chain of V8 cons strings that the join then copied: ~35 KB of garbage per 50-rule PUT
 * beside the 16 KB text (allocation sampling, in process), which the young generation collects over and
 * over under load.
 */
export function recordText(meta: Omit<StoredRuleset, 'rules'>, rules: readonly PartsOf[], assigned: AssignedTexts, head: string = rulesetHead(meta)): string {
  // The text between a rule's id and its parts' head, and between that head and its ref, for a rule with
  // the record's version and timestamp: joined once per record, since the join's cost is mostly per
  // piece (7 pieces a rule instead of 11: a 50-rule text ~11 → ~7 µs in process).
  const version = `,"version":${JSON.stringify(meta.version)},`;
  const lastUpdated = `"last_updated":${JSON.stringify(meta.last_updated)},"ref":`;
  const { ids, refs, kept } = assigned;
  // Made to size: grown by push, the array of ~350 pieces was copied as it grew.
  const n = rules.length;
  const pieces = new Array<string>(7 * n + 2);
  pieces[0] = head;
  let k = 1;
  for (let i = 0; i < n; i++) {
    const p = rules[i]!.parts;
    const id = ids[i]!;
    const own = kept?.[i];
    pieces[k++] = i === 0 ? '{"id":' : ',{"id":';
    pieces[k++] = id;
    pieces[k++] = own ? `,"version":${own.version},` : version;
    pieces[k++] = p.head;
    pieces[k++] = own ? `"last_updated":${own.lastUpdated},"ref":` : lastUpdated;
    pieces[k++] = refs ? refs[i]! : id;
    pieces[k++] = p.tail;
  }
  pieces[k] = ']}';
  return pieces.join('');
}

/** A ruleset's JSON text from its members and its rules' texts. */
export function rulesetText(meta: Omit<StoredRuleset, 'rules'>, rules: readonly string[]): string {
  return `${rulesetHead(meta)}${rules.join(',')}]}`;
}

/** A ruleset's JSON text up to its rules: `{"id":…,…,"rules":[`. */
export function rulesetHead(meta: Omit<StoredRuleset, 'rules'>): string {
  const { id, name, description, kind, phase, version, last_updated } = meta;
  return `{"id":${JSON.stringify(id)},"name":${JSON.stringify(name)},"description":${JSON.stringify(description)},"kind":${JSON.stringify(kind)},"phase":${JSON.stringify(phase)},"version":${JSON.stringify(version)},"last_updated":${JSON.stringify(last_updated)},"rules":[`;
}

/**
 * What a store writes of a ruleset version it writes compact (see {@link HistoryRows}): `compact` (the ruleset's members, and per rule
 * `[id, version, last_updated, ref]` with null for the ruleset's version and timestamp and for a ref
 * equal to the id, or the id alone when all three are null, or 0 for that id when the record's seed gave
 * it, the seed then following the rules: see {@link seededId}) and the rule contents it refers to (`parts`:
 * JSON `[[head, tail], …]`, and `digest`, its SHA-256 in hex).
 */
export interface CompactForm {
  readonly compact: string;
  readonly parts: string;
  readonly digest: string;
  /**
   * A key of the contents in this process, cheap to make (no hashing of the ~15 KB of parts): equal
   * keys, equal contents (equal contents may have different keys). See {@link RuleContents}.
   */
  readonly key: string;
}

/**
 * The rule contents of a record: their parts text and its SHA-256, each made when first asked for. A
 * store that writes a version whole the first time its contents come (the SQLite store) decides by
 * `key` and never needs them for an edit: hashing an edit's ~15 KB of parts was ~10% of its PUT.
 */
export class RuleContents {
  private text?: string;
  private hash?: string;

  constructor(private readonly partTexts: readonly string[], readonly key: string) {}

  get parts(): string {
    return (this.text ??= partsText(this.partTexts));
  }

  get digest(): string {
    return (this.hash ??= createHash('sha256').update(this.parts).digest('hex'));
  }
}

/** Kept on the record under a symbol, not enumerable, as its text is (see cache.ts: not in a WeakMap). */
const FORM = Symbol('rulekit.compactForm');
/** For a record that takes no new property. */
const frozenForms = new WeakMap<object, CompactForm>();

/** A compact form whose contents' parts and digest are made when first asked for (by {@link RuleContents}). */
class Form implements CompactForm {
  constructor(readonly compact: string, private readonly contents: RuleContents) {}
  get parts(): string {
    return this.contents.parts;
  }
  get digest(): string {
    return this.contents.digest;
  }
  get key(): string {
    return this.contents.key;
  }
}

/**
 * The compact form of a record and its text: `assigned` the members the server assigned to its rules;
 * `contents` the parts of all its rules, in order, as JSON and their digest (the caller computes them once
 * per body). Remembered for the record (see {@link compactFormOf}).
 */
export function withCompactForm<T extends Omit<StoredRuleset, 'rules'>>(record: T, assigned: AssignedTexts, contents: RuleContents, head: string = rulesetHead(record)): T {
  const version = JSON.stringify(record.version);
  const lastUpdated = JSON.stringify(record.last_updated);
  const { ids, refs, kept, seed, fromSeed } = assigned;
  // The seed, after the rules, when a rule is written as 0: the text's members are read by name (see
  // rulesetText), so it is not part of the text.
  const withSeed = `],"seed":"${seed}"}`;
  // Every rule new, its id the seed's (a PUT of rules without ids or refs of their own): a 0 each.
  if (!refs && !kept && seed !== undefined && !fromSeed && ids.length) return remember(record, new Form(head + zeros(ids.length) + withSeed, contents));
  // Every rule its id alone: the ids joined.
  if (!refs && !kept && (seed === undefined || !ids.length)) return remember(record, new Form([head, ids.join(','), ']}'].join(''), contents));
  // One join of all the pieces, as in recordText.
  const pieces: string[] = [head];
  let seeded = false;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const v = kept?.[i]?.version ?? version;
    const t = kept?.[i]?.lastUpdated ?? lastUpdated;
    const ref = refs ? refs[i]! : id;
    if (i > 0) pieces.push(',');
    // A rule with the ruleset's version and timestamp and a ref equal to its id (every rule a PUT adds)
    // is its id alone (a fifth less to write per row than `[id,null,null,null]`), or 0 when the seed gave it.
    if (v === version && t === lastUpdated && ref === id) {
      if (seed !== undefined && (!fromSeed || fromSeed[i])) {
        pieces.push('0');
        seeded = true;
      } else pieces.push(id);
    } else pieces.push('[', id, ',', v === version ? 'null' : v, ',', t === lastUpdated ? 'null' : t, ',', ref === id ? 'null' : ref, ']');
  }
  pieces.push(seeded ? withSeed : ']}');
  return remember(record, new Form(pieces.join(''), contents));
}

/** `0,0,…,0`, `n` of them, kept per `n`. */
const zerosOf: string[] = [];
function zeros(n: number): string {
  return (zerosOf[n] ??= n ? `${'0,'.repeat(n - 1)}0` : '');
}

/** Remember `form` as the compact form of `record` (see {@link compactFormOf}). */
function remember<T extends object>(record: T, form: CompactForm): T {
  // In a box, so that a form given again replaces it even on a record frozen since.
  const box = (record as { [FORM]?: { form: CompactForm } })[FORM];
  if (box) box.form = form;
  else if (Object.isExtensible(record)) Object.defineProperty(record, FORM, { value: { form }, enumerable: false, writable: false, configurable: false });
  else frozenForms.set(record, form);
  return record;
}

/** The compact form remembered for a record, when it was made with one. */
export function compactFormOf(record: object): CompactForm | undefined {
  return (record as { [FORM]?: { form: CompactForm } })[FORM]?.form ?? frozenForms.get(record);
}

/**
 * How a store writes the history row of each record: as its compact form when the record's rule contents
 * come for the second time or more, else as its whole text. An edit's contents, or a new ruleset's, need
 * not come again: one ~16 KB row of text is cheaper than the contents' row and a compact one, and the
 * contents are not hashed (SHA-256 of an edit's ~15 KB of parts was ~10% of its PUT). The keys of the
 * most recent `max` contents met once are kept; a forgotten one is written whole once more.
 */
export class HistoryRows {
  private readonly seenOnce = new Set<string>();
  private readonly whole = new WeakSet<object>();

  constructor(private readonly max = 1024) {}

  /** The compact form to write for this record, or undefined to write its whole text. */
  formFor(record: object): CompactForm | undefined {
    const form = compactFormOf(record);
    if (!form) return undefined;
    // Decided by the contents' key, which costs no hashing.
    if (this.seenOnce.has(form.key)) {
      this.whole.delete(record);
      return form;
    }
    this.seenOnce.add(form.key);
    if (this.seenOnce.size > this.max) this.seenOnce.delete(this.seenOnce.values().next().value!);
    this.whole.add(record);
    return undefined;
  }

  /** The compact form the record's row was last written with by {@link formFor} (undefined: its whole text). */
  writtenForm(record: object): CompactForm | undefined {
    return this.whole.has(record) ? undefined : compactFormOf(record);
  }
}

/** One rule's parts as the compact form keeps them (JSON `[head, tail]`). */
export function partText(p: RuleParts): string {
  return JSON.stringify([p.head, p.tail]);
}

/**
 * The parts of rules as the compact form keeps them (JSON `[[head, tail], …]`), from each rule's
 * {@link partText}: the caller keeps those per rule, so a body with one rule edited serialises one.
 */
export function partsText(parts: readonly string[]): string {
  return `[${parts.join(',')}]`;
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
    return ruleText({ head: p[i]![0], tail: p[i]![1] }, quotedId, v === null ? version : JSON.stringify(v), t === null ? lastUpdated : JSON.stringify(t), ref === null ? quotedId : JSON.stringify(ref));
  });
  return rulesetText(c, rules);
}
