/**
 * Records whose rule objects are made when first read. A record the server makes from a body is written
 * (its compact form) and answered (its text) from the rules' parts and assigned members, which it keeps in
 * arrays of strings; a `StoredRule` object per rule is needed only by code that reads `record.rules` (a
 * PUT that names stored rules by id or ref, the simulator, the custom-field checks), so it is made then.
 * A 50-rule PUT made 50 of them for nothing (~4.4 KB), and on PostgreSQL each lives until its group
 * commits, copied by the young-generation collections that meet it.
 *
 * `rules` stays an own, enumerable member (an accessor), so `JSON.stringify`, spreads, `structuredClone`
 * and deep equality see the record as they see a plain one.
 * @module
 */
import type { StoredRule, StoredRuleset } from './types.js';

/** Kept on the record under a symbol, not enumerable (as its text is: see cache.ts). */
const LATER = Symbol('rulekit.rulesOnDemand');

interface Later {
  rules: StoredRule[] | undefined;
  make: ((record: Omit<StoredRuleset, 'rules'>) => StoredRule[]) | undefined;
}

/** Freeze rules made for a record frozen before they were made (records handed out are shared). */
export function freezeRules(rules: StoredRule[]): StoredRule[] {
  for (const rule of rules) {
    if (rule.action_parameters) Object.freeze(rule.action_parameters);
    Object.freeze(rule);
  }
  return Object.freeze(rules) as StoredRule[];
}

// One getter and one descriptor for every record: V8 then gives records made alike one hidden class.
function rulesOf(this: Omit<StoredRuleset, 'rules'> & { [LATER]: Later }): StoredRule[] {
  const later = this[LATER];
  if (later.rules === undefined) {
    const rules = later.make!(this);
    later.make = undefined;
    later.rules = Object.isFrozen(this) ? freezeRules(rules) : rules;
  }
  return later.rules;
}
const RULES: PropertyDescriptor = { get: rulesOf, enumerable: true, configurable: false };

/** Give `record` the member `rules`, made by `make` (given the record) when first read, once. */
export function withRulesOnDemand<T extends Omit<StoredRuleset, 'rules'>>(record: T, make: (record: T) => StoredRule[]): T & { rules: StoredRule[] } {
  Object.defineProperty(record, LATER, { value: { rules: undefined, make: make as Later['make'] } satisfies Later, enumerable: false, writable: false, configurable: false });
  Object.defineProperty(record, 'rules', RULES);
  return record as T & { rules: StoredRule[] };
}

/** Whether `record.rules` is still to be made (reading it would make it). */
export function rulesPending(record: object): boolean {
  const later = (record as { [LATER]?: Later })[LATER];
  return later !== undefined && later.rules === undefined;
}
