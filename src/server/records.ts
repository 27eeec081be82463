/**
 * What the service assigns when it stores a body: ids, refs, versions, timestamps and defaults of rulesets,
 * rules and Logpush jobs. Plain functions of (stored record, validated body, clock, id source), so the
 * routes and the tests share them and the store only persists what they return.
 * @module
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import type { Diagnostic } from '../diagnostics/index.js';
import { partText, recordText, RuleContents, rulesetHead, seedMask, withCompactForm, withJsonText, withRulesOnDemand, type AssignedTexts, type KeptText, type RuleParts, type StoredJob, type StoredRule, type StoredRuleset } from './store/index.js';
import { serverDiagnostic } from './envelope.js';

const ID_DIGITS = 32;

/**
 * A new id: 32 lower-case hex digits (128 random bits), like the service's. A ruleset's id; the default
 * id source, with which a record's new rule ids are its seed's instead (see {@link NewIds}), drawn in bulk.
 */
export function newId(): string {
  return randomBytes(ID_DIGITS / 2).toString('hex');
}

/**
 * The new rule ids of one record, as JSON strings (`"…"`): with {@link newId} as the id source, the ids a
 * seed gives (see {@link seededId}: the record's history row then names them by the seed), written quoted
 * by hand into a kept buffer, hex digit by hex digit, and read as one string that each id is a slice of
 * (quoting each id made two cons strings, ~64 bytes, per rule). Seeds are cut from a pool of random bytes
 * (one CSPRNG call per 256 records). Another source's ids are quoted one by one (it may give any string).
 */
class NewIds {
  /** The seed, 32 hex digits, when the ids are a seed's. */
  readonly seed: string | undefined;
  private readonly text: string | undefined;

  constructor(private readonly source: () => string, count: number) {
    if (source !== newId) return;
    if (seedsUsed >= SEEDS) {
      randomFillSync(seedPool);
      seedsUsed = 0;
    }
    const s = SEED_BYTES * seedsUsed++;
    const size = ID_DIGITS + QUOTED_DIGITS * count;
    if (idText.length < size) idText = Buffer.allocUnsafe(Math.max(size, 2 * idText.length));
    let p = 0;
    for (let j = s; j < s + SEED_BYTES; j++) {
      const b = seedPool[j]!;
      idText[p++] = HEX_DIGITS[b >> 4]!;
      idText[p++] = HEX_DIGITS[b & 15]!;
    }
    for (let i = 0; i < count; i++) {
      idText[p++] = QUOTE;
      for (let w = 0; w < 4; w++) {
        const m = seedMask(i, w);
        for (let k = 0, shift = 24; k < 4; k++, shift -= 8) {
          const b = seedPool[s + 4 * w + k]! ^ ((m >>> shift) & 255);
          idText[p++] = HEX_DIGITS[b >> 4]!;
          idText[p++] = HEX_DIGITS[b & 15]!;
        }
      }
      idText[p++] = QUOTE;
    }
    this.text = idText.toString('latin1', 0, p);
    this.seed = this.text.slice(0, ID_DIGITS);
  }

  /** The id of the new rule at index `i` of the record, quoted. */
  at(i: number): string {
    if (this.text === undefined) return JSON.stringify(this.source());
    const from = ID_DIGITS + QUOTED_DIGITS * i;
    return this.text.slice(from, from + QUOTED_DIGITS);
  }
}

const SEED_BYTES = ID_DIGITS / 2;
const SEEDS = 256;
const seedPool = Buffer.allocUnsafe(SEED_BYTES * SEEDS);
let seedsUsed = SEEDS;
const QUOTED_DIGITS = ID_DIGITS + 2;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const QUOTE = 0x22;
let idText = Buffer.allocUnsafe(ID_DIGITS + QUOTED_DIGITS * 64);

/** The string a JSON string (as `JSON.stringify` writes it) stands for. */
const unquote = (quoted: string): string => (quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1));

/** The timestamp format of responses: ISO 8601, UTC, fractional seconds. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString();
}

type Body = Record<string, unknown>;

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/** A rule's members as a body gives them (`ref` only when it gives one). */
type RuleContent = Omit<StoredRule, 'id' | 'version' | 'last_updated' | 'ref'> & { ref?: string };

/**
 * A body rule's content, the JSON text of a stored rule around the members the server assigns, those
 * parts as the compact form keeps them, and the body's `ref` as JSON.
 */
interface BodyRule {
  content: RuleContent;
  parts: RuleParts;
  partText: string;
  refText?: string;
}

/**
 * Body rules of frozen bodies (the server's memo of parsed bodies hands the same frozen value to every
 * request with the same bytes): a PUT of a body seen before serialises none of its rules' members again.
 * The stored record's text is cut from these parts instead of `JSON.stringify` of the record, which was
 * ~40 µs of a 50-rule PUT (~16 KB of text).
 */
const ofFrozen = new WeakMap<object, BodyRule>();

/**
 * Body rules by their members, for bodies not seen before: a PUT with one rule edited finds the other
 * rules here (a key of their members is cheaper than serialising them, and their parts are shared
 * rather than made again as garbage). The oldest {@link BY_MEMBERS_MAX} go first. A rule is kept from
 * its second time on, and the first time only its key is remembered: parts kept for rules that never
 * come again (a body of new rules after another) are copied through V8's young generation and promoted,
 * which was most of the ~1 ms of GC these caches cost a PUT of 50 new rules in the server's bench.
 */
const byMembers = new Map<string, BodyRule>();
const BY_MEMBERS_MAX = 8192;
const seenOnce = new Set<string>();

function bodyRule(r: Body): BodyRule {
  let b = ofFrozen.get(r);
  if (b) return b;
  const action = str(r['action']);
  const expression = str(r['expression']);
  const description = str(r['description']);
  const enabled = typeof r['enabled'] === 'boolean' ? r['enabled'] : true;
  const ref = typeof r['ref'] === 'string' ? r['ref'] : undefined;
  const params = r['action_parameters'];
  const paramsText = params === undefined ? undefined : JSON.stringify(params);
  // Lengths first: the strings may hold any character, so no separator could tell them apart.
  const key = `${action.length},${expression.length},${description.length},${ref === undefined ? -1 : ref.length},${enabled ? 1 : 0}:${action}${expression}${description}${ref ?? ''}${paramsText ?? ''}`;
  b = byMembers.get(key);
  if (!b) {
    const content: RuleContent = { action, expression, description, enabled };
    if (ref !== undefined) content.ref = ref;
    if (params !== undefined) content.action_parameters = params as Record<string, unknown>;
    const parts = {
      head: `"action":${JSON.stringify(action)},"expression":${JSON.stringify(expression)},"description":${JSON.stringify(description)},`,
      tail: `,"enabled":${enabled}${paramsText === undefined ? '' : `,"action_parameters":${paramsText}`}}`,
    };
    b = { content, parts, partText: partText(parts) };
    if (ref !== undefined) b.refText = JSON.stringify(ref);
    if (!seenOnce.delete(key)) {
      if (seenOnce.size >= BY_MEMBERS_MAX) seenOnce.delete(seenOnce.values().next().value!);
      seenOnce.add(key);
    } else {
      if (byMembers.size >= BY_MEMBERS_MAX) byMembers.delete(byMembers.keys().next().value!);
      byMembers.set(key, b);
    }
  }
  if (Object.isFrozen(r)) ofFrozen.set(r, b);
  return b;
}

/** The rule contents of a body's rules for the compact form (JSON and SHA-256, made when asked), once per frozen body. */
const contentsOfFrozen = new WeakMap<object, RuleContents>();

/** Numbers of body rules, for the key of a list of them. */
const serials = new WeakMap<BodyRule, number>();
let nextSerial = 0;

function contentsOf(bodyRules: readonly Body[], rules: readonly BodyRule[]): RuleContents {
  let c = contentsOfFrozen.get(bodyRules);
  if (c) return c;
  // Body rules are shared by their members (see bodyRule), so their numbers name the contents: equal
  // lists of numbers, equal contents.
  const key = rules.map((r) => {
    let n = serials.get(r);
    if (n === undefined) serials.set(r, (n = nextSerial++));
    return n;
  }).join(',');
  c = new RuleContents(rules.map((r) => r.partText), key);
  if (Object.isFrozen(bodyRules)) contentsOfFrozen.set(bodyRules, c);
  return c;
}

/** The members that make a rule what it is; a PUT that leaves them alone keeps the rule's version. */
function sameRule(a: StoredRule, b: RuleContent, ref: string): boolean {
  return a.action === b.action && a.expression === b.expression && a.description === b.description && a.enabled === b.enabled && a.ref === ref &&
    JSON.stringify(a.action_parameters ?? null) === JSON.stringify(b.action_parameters ?? null);
}

/** A rule that keeps its version and timestamp (sent back unchanged): those as JSON strings, and the stored rule. */
interface Kept extends KeptText {
  readonly rule: StoredRule;
}

/**
 * The rules of a record being made, in arrays of the body's length filled in order: the body rule each
 * came from (its content and parts, shared by every record of the body) and what the server assigned
 * (see {@link AssignedTexts}): the record's text and compact form are cut from these, and its `StoredRule`
 * objects made from them only when read (see rules-on-demand.ts). No object per rule: a 50-rule PUT's
 * record was ~16 KB (a rule object, an object of its assigned members and a quoted id per rule) where
 * these arrays and the ids' slices of their pool are ~2.5 KB beside the compact form; on PostgreSQL a
 * record waits for its group's commit, copied by the young-generation collections that meet it.
 */
class MadeRules implements AssignedTexts {
  readonly from: BodyRule[];
  readonly ids: string[];
  refs: string[] | undefined;
  kept: (Kept | undefined)[] | undefined;
  readonly seed: string | undefined;
  fromSeed: Uint8Array | undefined;
  private n = 0;
  private readonly newIds: NewIds;

  constructor(size: number, source: () => string) {
    this.from = new Array<BodyRule>(size);
    this.ids = new Array<string>(size);
    this.newIds = new NewIds(source, size);
    this.seed = this.newIds.seed;
  }

  /** Add a rule with a new id (its ref the body's, or that id). */
  addNew(from: BodyRule): void {
    const id = this.newIds.at(this.n);
    this.add(from, id, from.refText ?? id, undefined, true);
  }

  /** Add a rule: its id and ref as JSON strings, and what it keeps when it keeps its version and timestamp. */
  add(from: BodyRule, quotedId: string, quotedRef: string, kept?: Kept, isNew = false): void {
    const i = this.n++;
    this.from[i] = from;
    this.ids[i] = quotedId;
    if (this.refs === undefined && quotedRef !== quotedId) {
      this.refs = new Array<string>(this.ids.length);
      for (let k = 0; k < i; k++) this.refs[k] = this.ids[k]!;
    }
    if (this.refs !== undefined) this.refs[i] = quotedRef;
    if (kept) (this.kept ??= new Array<Kept | undefined>(this.ids.length))[i] = kept;
    // Which ids the seed gave, noted once one is not (a rule that keeps its stored id).
    if (this.seed !== undefined && !isNew && !this.fromSeed) this.fromSeed = new Uint8Array(this.ids.length).fill(1, 0, i);
    if (this.fromSeed) this.fromSeed[i] = isNew ? 1 : 0;
  }

  /** The arrays cut to the rules added (a refused body adds fewer). */
  done(): this {
    for (const a of [this.from, this.ids, this.refs, this.kept]) if (a) a.length = this.n;
    if (this.fromSeed) this.fromSeed = this.fromSeed.subarray(0, this.n);
    return this;
  }

  /** The stored rules of a record with these rules (key order of the service's responses: id, version, action, …). */
  storedRules(meta: Omit<StoredRuleset, 'rules'>): StoredRule[] {
    const rules = new Array<StoredRule>(this.n);
    for (let i = 0; i < this.n; i++) {
      const { action, action_parameters, expression, description, enabled } = this.from[i]!.content;
      const kept = this.kept?.[i]?.rule;
      const id = unquote(this.ids[i]!);
      const rule: StoredRule = { id, version: kept ? kept.version : meta.version, action, expression, description, last_updated: kept ? kept.last_updated : meta.last_updated, ref: this.refs ? unquote(this.refs[i]!) : id, enabled };
      if (action_parameters !== undefined) rule.action_parameters = action_parameters;
      rules[i] = rule;
    }
    return rules;
  }
}

/**
 * The record, with its JSON text (made when first asked for: the answer sends it, a store writes it for
 * contents met the first time), its compact form (what the stores write otherwise) and its rule objects
 * (made when first read).
 */
function rulesetOf(meta: Omit<StoredRuleset, 'rules'>, bodyRules: readonly Body[], made: MadeRules): StoredRuleset {
  const { id, name, description, kind, phase, version, last_updated } = meta;
  made.done();
  const record: StoredRuleset = withRulesOnDemand({ id, name, description, kind, phase, version, last_updated }, (r) => made.storedRules(r));
  const head = rulesetHead(record);
  withJsonText(record, () => recordText(record, made.from, made, head));
  return withCompactForm(record, made, contentsOf(bodyRules, made.from), head);
}

/** The ruleset a valid create body makes. */
export function newRuleset(body: Body, now: string, id: () => string = newId): StoredRuleset {
  const bodyRules = Array.isArray(body['rules']) ? (body['rules'] as Body[]) : [];
  const rulesetId = id();
  const made = new MadeRules(bodyRules.length, id);
  for (const r of bodyRules) made.addNew(bodyRule(r));
  return rulesetOf({
    id: rulesetId,
    name: str(body['name']),
    description: str(body['description']),
    kind: str(body['kind']),
    phase: str(body['phase']),
    version: '1',
    last_updated: now,
  }, bodyRules, made);
}

/**
 * The ruleset a valid PUT body makes of the stored one: all rules replaced, the version one up. A rule
 * that names a stored rule by `id` (or, without an id, by `ref`) keeps its id; when its content is
 * unchanged it also keeps its version and timestamp. Refused: an unknown or repeated id, a changed kind
 * or phase.
 */
export function replaceRules(current: StoredRuleset, body: Body, now: string, id: () => string = newId): { next: StoredRuleset } | { refused: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  for (const m of ['kind', 'phase'] as const) {
    if (typeof body[m] === 'string' && body[m] !== current[m]) {
      problems.push(serverDiagnostic('server-immutable-member', `"${m}" is fixed when a ruleset is created: this one is ${JSON.stringify(current[m])}, not ${JSON.stringify(body[m])}; create a new ruleset for another ${m}`, `/${m}`));
    }
  }
  const version = String(Number(current.version) + 1);
  // Built on the first body rule that names a stored one (automation that sends rules without ids, as
  // the bench's PUT does, never needs them).
  let byId: Map<string, StoredRule> | undefined;
  let byRef: Map<string, StoredRule> | undefined;
  const seen = new Set<string>();
  const bodyRules = Array.isArray(body['rules']) ? (body['rules'] as Body[]) : [];
  const rules = new MadeRules(bodyRules.length, id);
  bodyRules.forEach((r, i) => {
    const from = bodyRule(r);
    let old: StoredRule | undefined;
    if (typeof r['id'] === 'string') {
      old = (byId ??= new Map(current.rules.map((s) => [s.id, s]))).get(r['id']);
      if (!old) {
        problems.push(serverDiagnostic('server-unknown-rule-id', `this ruleset has no rule with id ${JSON.stringify(r['id'])}; leave "id" out to add a new rule`, `/rules/${i}/id`));
        return;
      }
    } else if (from.content.ref !== undefined) {
      old = (byRef ??= new Map(current.rules.map((s) => [s.ref, s]))).get(from.content.ref);
    }
    if (old) {
      if (seen.has(old.id)) {
        problems.push(serverDiagnostic('server-duplicate-rule-id', `rule ${old.id} appears twice in this PUT`, `/rules/${i}/id`));
        return;
      }
      seen.add(old.id);
      const ref = from.content.ref ?? old.ref;
      const quotedId = JSON.stringify(old.id);
      const quotedRef = from.content.ref !== undefined ? from.refText! : ref === old.id ? quotedId : JSON.stringify(ref);
      rules.add(from, quotedId, quotedRef, sameRule(old, from.content, ref) ? { version: JSON.stringify(old.version), lastUpdated: JSON.stringify(old.last_updated), rule: old } : undefined);
    } else rules.addNew(from);
  });
  if (problems.length) return { refused: problems };
  return {
    next: rulesetOf({
      id: current.id,
      name: typeof body['name'] === 'string' ? body['name'] : current.name,
      description: typeof body['description'] === 'string' ? body['description'] : current.description,
      kind: current.kind,
      phase: current.phase,
      version,
      last_updated: now,
    }, bodyRules, rules),
  };
}

/** A ruleset as the list answers it: without its rules (which are not read, so not made: see rules-on-demand.ts). */
export function rulesetSummary(r: StoredRuleset): Omit<StoredRuleset, 'rules'> {
  const summary: Record<string, unknown> = {};
  for (const k of Object.keys(r)) if (k !== 'rules') summary[k] = r[k as keyof StoredRuleset];
  return summary as Omit<StoredRuleset, 'rules'>;
}

const JOB_DEFAULTS: Omit<StoredJob, 'id'> = {
  name: null, dataset: null, destination_conf: '', logpull_options: null, filter: null, enabled: false, frequency: 'high', kind: '',
  max_upload_bytes: null, max_upload_interval_seconds: null, max_upload_records: null, output_options: null,
  error_message: null, last_complete: null, last_error: null,
};

/** Members of a job body the store keeps (the ownership challenge is checked, not kept). */
const JOB_WRITABLE = ['name', 'dataset', 'destination_conf', 'logpull_options', 'filter', 'enabled', 'frequency', 'kind', 'max_upload_bytes', 'max_upload_interval_seconds', 'max_upload_records', 'output_options'] as const;

function applyJob(base: Omit<StoredJob, 'id'>, body: Body): Omit<StoredJob, 'id'> {
  const out = { ...base } as Record<string, unknown>;
  for (const k of JOB_WRITABLE) if (Object.prototype.hasOwnProperty.call(body, k) && body[k] !== undefined) out[k] = body[k];
  return out as Omit<StoredJob, 'id'>;
}

/** The job a valid create body makes (without its id, which the store assigns). */
export function newJob(body: Body): Omit<StoredJob, 'id'> {
  return applyJob(JOB_DEFAULTS, body);
}

/** The job a valid update body makes of the stored one: members given replace, the rest stay. */
export function updateJob(current: StoredJob, body: Body): StoredJob {
  const { id, ...rest } = current;
  // The dataset is fixed when a job is created.
  const { dataset: _dataset, ...changes } = body;
  return { id, ...applyJob(rest, changes) };
}
