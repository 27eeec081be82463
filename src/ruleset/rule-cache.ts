/**
 * Per-rule answers of ruleset validation, for a caller that validates body after body whose rules mostly
 * repeat (the reference server: automation PUTs a whole ruleset to change one rule). What the validator
 * says of one rule on a parsed body (no JSON text, so no ranges in the body) is a function of the rule's
 * content, its index (the pointer `/rules/N` its diagnostics start with), the phase and the expression
 * options; the checks across rules (duplicate refs, the rule limit, the zone's custom fields, the note on
 * unchecked action parameters that is made once per ruleset) stay with the validator, which runs them on
 * every body. A rule is found by its JSON text (`JSON.stringify`, one native call), so a cache is only for
 * bodies that are JSON values as `JSON.parse` makes them: an `undefined` member would be lost from the key.
 *
 * An answer is kept with pointers relative to the rule and handed out as frozen diagnostics per index: the
 * same rule at the same index gets the same objects again (the server writes each diagnostic's envelope
 * entry once per object). The most recent {@link RuleCache.maxEntries} rule texts per scope are kept, and
 * per rule its answers at the {@link MAX_INDEXES} most recent indexes. A rule is kept from its second
 * time on (the first time only its text is remembered): an answer kept for a rule that never comes again
 * is copied through V8's young generation and promoted for nothing, which a body of new rules after
 * another pays in GC (~0.2 ms of a 50-rule PUT in the server's bench, with the other caches that keep
 * rule parts).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { ExpressionOptions } from '../expression/index.js';
import { optionsKey } from './check-cache.js';

/** The code of the once-per-ruleset note a rule's answer may hold (see {@link RuleAnswer.noteAt}). */
export const PARAMETERS_NOTE = 'rule-action-parameters-not-checked';

/** What the validator said of one rule, kept by {@link RuleCache}. */
interface RuleAnswer {
  /** The diagnostics, each with `pointer` the part after the rule's own pointer. */
  relative: readonly Diagnostic[];
  /** Index in `relative` of the parameters note (given only when no rule before gave it), or -1. */
  noteAt: number;
  /** Frozen answers by the rule's pointer, and `\0` after it for the answer without the note. */
  byPointer: Map<string, readonly Diagnostic[]>;
}

const MAX_INDEXES = 4;

/**
 * A store of per-rule validation answers; give it to `validateRuleset` as `context.ruleCache`. Answers are
 * kept apart per phase and per expression options (scheme and list catalog by identity, like the cache
 * of checked expressions); options that cannot be keyed are validated without it.
 */
export class RuleCache {
  private readonly scopes = new WeakMap<object, WeakMap<object, Map<string, RuleScope>>>();

  /** @param maxEntries Most rules kept per phase and options (and as many more remembered as seen once). */
  constructor(readonly maxEntries = 4096) {}

  /** The answers for one phase and set of expression options, or undefined when they cannot be keyed. */
  scope(phase: string | undefined, options: ExpressionOptions): RuleScope | undefined {
    const k = optionsKey(options);
    if (!k) return undefined;
    let byLists = this.scopes.get(k.scheme);
    if (!byLists) this.scopes.set(k.scheme, (byLists = new WeakMap()));
    let byKey = byLists.get(k.lists);
    if (!byKey) byLists.set(k.lists, (byKey = new Map()));
    const key = `${phase ?? ''}\u0000${k.key}`;
    let scope = byKey.get(key);
    if (!scope) byKey.set(key, (scope = new RuleScope(this.maxEntries)));
    return scope;
  }
}

/** The rule answers of one phase and set of options. */
export class RuleScope {
  private readonly rules = new Map<string, RuleAnswer>();
  /** Keys of rules seen once, not kept yet (at most as many as are kept). */
  private readonly seen = new Set<string>();

  constructor(private readonly maxEntries: number) {}

  /**
   * The diagnostics of the rule with JSON text `key` at `pointer`, and whether they include the
   * parameters note; `noted` says whether a rule before it gave that note. Undefined when not kept.
   */
  get(key: string, pointer: string, noted: boolean): { diagnostics: readonly Diagnostic[]; notes: boolean } | undefined {
    const answer = this.rules.get(key);
    if (!answer) return undefined;
    return { diagnostics: this.at(answer, pointer, noted), notes: answer.noteAt >= 0 };
  }

  /**
   * Keep what the validator said of a rule at `pointer` (made as if no rule before it gave the parameters
   * note); answers as {@link get} does. Diagnostics whose pointer is not under `pointer` are not kept.
   */
  put(key: string, pointer: string, diagnostics: readonly Diagnostic[], noted: boolean): { diagnostics: readonly Diagnostic[]; notes: boolean } {
    if (!this.seen.delete(key)) {
      if (this.seen.size >= this.maxEntries) this.seen.delete(this.seen.values().next().value!);
      this.seen.add(key);
      return unkept(diagnostics, noted);
    }
    const relative: Diagnostic[] = [];
    let noteAt = -1;
    for (const d of diagnostics) {
      const p = d.pointer;
      if (p === undefined || !(p === pointer || p.startsWith(`${pointer}/`))) return unkept(diagnostics, noted);
      if (d.code === PARAMETERS_NOTE) noteAt = relative.length;
      relative.push(freezeDeep({ ...d, pointer: p.slice(pointer.length) }));
    }
    const answer: RuleAnswer = { relative, noteAt, byPointer: new Map() };
    if (this.rules.size >= this.maxEntries) this.rules.delete(this.rules.keys().next().value!);
    this.rules.set(key, answer);
    return { diagnostics: this.at(answer, pointer, noted), notes: noteAt >= 0 };
  }

  private at(answer: RuleAnswer, pointer: string, noted: boolean): readonly Diagnostic[] {
    if (answer.relative.length === 0) return answer.relative;
    const withNote = answer.noteAt >= 0 && !noted;
    const key = withNote || answer.noteAt < 0 ? pointer : `${pointer}\u0000`;
    let out = answer.byPointer.get(key);
    if (!out) {
      const made: Diagnostic[] = [];
      answer.relative.forEach((d, i) => {
        if (i !== answer.noteAt || withNote) made.push(Object.freeze({ ...d, pointer: pointer + d.pointer }));
      });
      out = Object.freeze(made);
      if (answer.byPointer.size >= MAX_INDEXES) answer.byPointer.delete(answer.byPointer.keys().next().value!);
      answer.byPointer.set(key, out);
    }
    return out;
  }
}

/** The answer of a rule made afresh and not kept: without the parameters note when a rule before gave it. */
function unkept(diagnostics: readonly Diagnostic[], noted: boolean): { diagnostics: readonly Diagnostic[]; notes: boolean } {
  const notes = diagnostics.some((d) => d.code === PARAMETERS_NOTE);
  return { diagnostics: notes && noted ? diagnostics.filter((d) => d.code !== PARAMETERS_NOTE) : diagnostics, notes };
}

function freezeDeep<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) freezeDeep(x);
    Object.freeze(v);
  }
  return v;
}
