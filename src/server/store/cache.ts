/**
 * The records a store keeps in memory: the latest version read or written of each recently used
 * ruleset, parsed, with its JSON text. A ruleset's record at one version never changes once committed
 * (a write makes a new version; ids are random and never reused), so a cached record is valid exactly
 * when its version is the one the database holds: every read still asks the database for the version
 * (in the same transaction, for writes) and parses the body only when the cache has another. Only
 * records stored by a write enter the cache (never a dry run's), and a store empties it when a
 * transaction that wrote them fails to commit. Records handed out are frozen, since requests share them.
 * @module
 */
import type { Stored, StoredRule, StoredRuleset } from './types.js';

function freeze(r: StoredRuleset): StoredRuleset {
  for (const rule of r.rules) {
    if (rule.action_parameters) Object.freeze(rule.action_parameters);
    Object.freeze(rule);
  }
  Object.freeze(r.rules as StoredRule[]);
  return Object.freeze(r);
}

/** Stored records by ruleset id, the most recently used `max` of them. */
export class RulesetCache {
  private readonly byId = new Map<string, { version: number; stored: Stored<StoredRuleset> }>();

  constructor(private readonly max = 1000) {}

  /** The record of ruleset `id` at `version`: the cached one, or `text()` parsed (and cached). */
  of(id: string, version: number, text: () => string): Stored<StoredRuleset> {
    const hit = this.get(id, version);
    if (hit) return hit;
    const json = text();
    return this.put({ record: JSON.parse(json) as StoredRuleset, json });
  }

  /** The version of ruleset `id` the cache holds. */
  versionOf(id: string): number | undefined {
    return this.byId.get(id)?.version;
  }

  /** The cached record of ruleset `id` when it is at `version`. */
  get(id: string, version: number): Stored<StoredRuleset> | undefined {
    const hit = this.byId.get(id);
    return hit && hit.version === version ? hit.stored : undefined;
  }

  /** Cache a committed record and its text; answers them with the record frozen. */
  put(stored: Stored<StoredRuleset>): Stored<StoredRuleset> {
    const entry = { version: Number(stored.record.version), stored: { record: freeze(stored.record), json: stored.json } };
    this.byId.delete(stored.record.id);
    this.byId.set(stored.record.id, entry);
    if (this.byId.size > this.max) this.byId.delete(this.byId.keys().next().value!);
    return entry.stored;
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }
}
