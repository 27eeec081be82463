/**
 * What the stores keep in memory of rulesets: the parsed record of each ruleset's latest version read or
 * written, and the JSON text of records as stored, so that answers send those bytes instead of
 * serialising the record again.
 *
 * A ruleset's record at one version never changes once committed (a write makes a new version; ids are
 * random and never reused), so a cached record is valid exactly when its version is the one the database
 * holds: every read still asks the database for the version (in the same transaction, for writes) and
 * parses the body only when the cache has another. Only records stored by a write enter the cache
 * (never a dry run's), and a store empties it when a transaction that wrote them fails to commit.
 * Records handed out are frozen, since requests share them.
 * @module
 */
import { freezeRules, rulesPending } from './rules-on-demand.js';
import type { StoredRuleset } from './types.js';

/**
 * What is remembered of a record: its JSON text, or the function that makes it (called once, on the
 * first {@link jsonTextOf}), and how often it was answered with the bytes of its envelope (see
 * envelope.ts).
 */
export interface Remembered {
  text: string | undefined;
  make: (() => string) | undefined;
  answers: number;
  bytes: Uint8Array | undefined;
}

/**
 * Kept on the record itself, under a symbol and not enumerable (JSON.stringify, spreads and
 * structuredClone leave it out), not in a WeakMap: V8's young-generation collections treat the values
 * of an old WeakMap as live whatever their keys, so a short-lived record's text in one would be copied
 * by every collection that met it, and a value that refers to its key (a function making the text from
 * the record) would keep the record too, into the old generation (a standalone measure: scavenges of
 * 1.2 ms without side table, 8.9 ms with a WeakMap of texts, 32 ms with a WeakMap of functions over
 * their keys).
 */
const REMEMBERED = Symbol('rulekit.remembered');
/** For an object that takes no new property (frozen before its text was given). */
const fallback = new WeakMap<object, Remembered>();

/** What is remembered of `value`, if anything. */
export function rememberedOf(value: unknown): Remembered | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [REMEMBERED]?: Remembered })[REMEMBERED] ?? fallback.get(value);
}

/**
 * Remember `text` as the JSON text of `value` (which must be what `JSON.stringify(value)` gives). Given as
 * a function, the text is made when first asked for: a PUT's record waits for its group's commit on
 * PostgreSQL, and its ~16 KB text made when answered dies right after the answer is encoded.
 */
export function withJsonText<T extends object>(value: T, text: string | (() => string)): T {
  const r: Remembered = typeof text === 'string' ? { text, make: undefined, answers: 0, bytes: undefined } : { text: undefined, make: text, answers: 0, bytes: undefined };
  const own = Object.getOwnPropertyDescriptor(value, REMEMBERED);
  // Given again (another text for the same object): the same holder, reset.
  if (own) Object.assign(own.value as Remembered, r);
  else if (Object.isExtensible(value)) Object.defineProperty(value, REMEMBERED, { value: r, enumerable: false, writable: false, configurable: false });
  else fallback.set(value, r);
  return value;
}

/** The JSON text the store holds for a record it returned, when it has it. */
export function jsonTextOf(value: unknown): string | undefined {
  const r = rememberedOf(value);
  if (!r) return undefined;
  if (r.text === undefined && r.make) {
    r.text = r.make();
    r.make = undefined;
  }
  return r.text;
}

/** Whether {@link jsonTextOf} has a text for `value`, without making it. */
export function hasJsonText(value: object): boolean {
  return rememberedOf(value) !== undefined;
}

function freeze(r: StoredRuleset): StoredRuleset {
  // Rules still to be made are frozen when they are (see rules-on-demand.ts).
  if (!rulesPending(r)) freezeRules(r.rules);
  return Object.freeze(r);
}

/** Parsed records by ruleset id, the most recently used `max` of them. */
export class RulesetCache {
  private readonly byId = new Map<string, { version: number; record: StoredRuleset }>();

  constructor(private readonly max = 1000) {}

  /** The record of ruleset `id` at `version`: the cached one, or `text()` parsed (and cached). */
  of(id: string, version: number, text: () => string): StoredRuleset {
    const hit = this.get(id, version);
    if (hit) return hit;
    const body = text();
    return this.put(withJsonText(JSON.parse(body) as StoredRuleset, body));
  }

  /** The version of ruleset `id` the cache holds. */
  versionOf(id: string): number | undefined {
    return this.byId.get(id)?.version;
  }

  /** The cached record of ruleset `id` when it is at `version`. */
  get(id: string, version: number): StoredRuleset | undefined {
    const hit = this.byId.get(id);
    return hit && hit.version === version ? hit.record : undefined;
  }

  /** Cache a committed record (with its JSON text remembered); answers it frozen. */
  put(record: StoredRuleset): StoredRuleset {
    const entry = { version: Number(record.version), record: freeze(record) };
    this.byId.delete(record.id);
    this.byId.set(record.id, entry);
    if (this.byId.size > this.max) this.byId.delete(this.byId.keys().next().value!);
    return entry.record;
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }
}
