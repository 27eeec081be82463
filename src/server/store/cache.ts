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
import type { StoredRuleset } from './types.js';

/** A record's JSON text, or the function that makes it (called once, on the first {@link jsonTextOf}). */
const texts = new WeakMap<object, string | (() => string)>();

/**
 * Remember `text` as the JSON text of `value` (which must be what `JSON.stringify(value)` gives). Given as
 * a function, the text is made when first asked for: a PUT's record waits for its group's commit on
 * PostgreSQL (64 of them under the bench's load), and its ~16 KB text made at once was most of what
 * the young generation's collections copied (sampled survivors: 87% of the bytes); made when answered,
 * it dies right after the answer is encoded.
 */
export function withJsonText<T extends object>(value: T, text: string | (() => string)): T {
  texts.set(value, text);
  return value;
}

/** The JSON text the store holds for a record it returned, when it has it. */
export function jsonTextOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const text = texts.get(value);
  if (typeof text !== 'function') return text;
  const made = text();
  texts.set(value, made);
  return made;
}

/** Whether {@link jsonTextOf} has a text for `value`, without making it. */
export function hasJsonText(value: object): boolean {
  return texts.has(value);
}

function freeze(r: StoredRuleset): StoredRuleset {
  for (const rule of r.rules) {
    if (rule.action_parameters) Object.freeze(rule.action_parameters);
    Object.freeze(rule);
  }
  Object.freeze(r.rules);
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
