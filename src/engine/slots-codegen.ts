/**
 * The compiled ruleset on numeric slots (src/capture/slots.ts): the same generated decider as
 * decider-codegen.ts, but reading a packet decoded into typed arrays instead of a packet object, so addresses are
 * tested as numbers (`IpSet.hasUint32`/`hasWords`) and nothing per packet is a string. bench/decide.ts
 * measured the object path at ~2.5× the time of this one on a capture; the decider test
 * (test/ruleset/slots.test.ts) holds both to the same verdicts.
 *
 * Only rulesets whose every field is a slot field can be decided here ({@link slotsEligible}); the
 * simulator keeps the object path for the others (`ip.geoip.*`, colo, raw bytes with `bit_slice`).
 * @module
 */
import type { CheckedExpression, ExprNode, Predicate } from '../expression/index.js';
import type { IpSet } from '../net/index.js';
import { condition, HELPERS, INLINE_SET_MAX, type EmitContext } from '../expression/index.js';
import { IP_WORDS, SLOT, SLOT_KIND, IP_PROTOCOL_NAMES, geoName, ipv4TextOfNumber, ipv6TextOfWords } from '../capture/index.js';
import { deciderSource } from './decider-codegen.js';
import type { RulesetEntry, SlotsDecider } from './decider.js';

/** Helpers of the slots decider (`h` in its source): the expression helpers and address text for ordering. */
export const SLOT_HELPERS = Object.freeze({
  ...HELPERS,
  geoName,
  /** Text of the address in an `ip` field's slots (for `<`/`>` comparisons), or undefined when missing. */
  ipText(V: Float64Array, W: Uint32Array, slot: number, words: number): string | undefined {
    const family = V[slot];
    if (family === 4) return ipv4TextOfNumber(V[slot + 1]!);
    if (family === 6) return ipv6TextOfWords(W[words]!, W[words + 1]!, W[words + 2]!, W[words + 3]!);
    return undefined;
  },
});

/** The fields a checked expression reads (none of them may be derived or sliced for slots). */
function slotReadable(checked: CheckedExpression): boolean {
  for (const p of checked.predicates.values()) {
    if (p.lhs.kind !== 'field') return false;
    const f = p.lhs.field;
    if (f.aliasOf !== undefined || (f.anyOf && f.anyOf.length)) return false;
    if (SLOT_KIND[f.name] === undefined) return false;
  }
  return true;
}

/** Whether every rule reads only slot fields, directly (then the ruleset can be decided on slots). */
export function slotsEligible(entries: readonly RulesetEntry[]): boolean {
  return entries.every((e) => slotReadable(e.checked));
}

const ORDER: Record<string, string> = { lt: '<', le: '<=', gt: '>', ge: '>=' };

/** The source of a predicate on slots (`ctx.field` names the variable holding a field's first slot; `s` is string scratch). */
function slotPredicate(p: Predicate, ctx: EmitContext, names: string): string {
  // slotsEligible admits plain fields only.
  if (p.lhs.kind !== 'field' && p.lhs.kind !== 'bit_slice') return 'false';
  const f = p.lhs.field.name;
  const v = ctx.field(f);
  const slot = SLOT[f]!;
  switch (p.kind) {
    case 'bare':
      return `(${v} === 1)`;
    case 'int':
    case 'int-set':
      // Tests read the slot variable itself: a shared scratch variable that held numbers and strings
      // would box every NaN and double into a heap number (the bench showed it as GC time).
      // Every compare with NaN (missing) is false, as it must be, but `!==`: that one checks `v === v`.
      return p.kind === 'int' && p.op === 'ne' ? `(${v} === ${v} && ${v} !== ${p.value})` : `(${condition(p, ctx, v).code})`;
    case 'string':
    case 'string-set':
    case 'regex':
      // String slot fields hold numbers: ip.proto the protocol's, a country the one geoNameId gave its
      // code. NaN (missing) names nothing, so the test is false.
      if (SLOT_KIND[f] === 'geo') return `(s = h.geoName(${v}), s !== undefined && ${condition(p, ctx, 's').code})`;
      return `(s = ${names}[${v}], s !== undefined && ${condition(p, ctx, 's').code})`;
    case 'ip':
    case 'ip-set': {
      const w = IP_WORDS[f]!;
      if (p.kind === 'ip' && p.op !== 'eq' && p.op !== 'ne') {
        return `(s = h.ipText(V, W, ${slot}, ${w}), s !== undefined && h.ipCmp(s, ${ctx.constant(p.value)}) ${ORDER[p.op]} 0)`;
      }
      const not = p.kind === 'ip' && p.op === 'ne' ? '!' : '';
      // A family the set does not hold is never in it: `in` is false for it and `!=` is true.
      const v4 = p.set.rangeCount4 === 0 ? (not ? 'true' : 'false') : `${not}${inSet4(p.set, ctx, slot + 1)}`;
      const v6 = p.set.rangeCount6 === 0 ? (not ? 'true' : 'false') : `${not}${inSet6(p.set, ctx, w)}`;
      if (v6 === 'false') return `(${v} === 4 && ${v4})`;
      if (v4 === 'false') return `(${v} === 6 && ${v6})`;
      return `(${v} === 4 ? ${v4} : ${v} === 6 && ${v6})`;
    }
    case 'string-list':
      // Hostname and redirect lists test HTTP fields, which no slot holds (slotsEligible refuses them).
      return 'false';
  }
}

/**
 * Sets of at most this many ranges (per family) are tested inline, as compares of the address against
 * each range's ends; larger ones call the set's bucketed binary search. In a ruleset of 50 rules the
 * decider is too large for V8 to inline the set's method, so each test was a call: bench/decide.ts's
 * ruleset, with ten 3-address IPv4 ranges and ten IPv6 /48s, spent ~30% of the decider's time in them.
 */
export const INLINE_IP_RANGES = 4;

/** `IPv4 value in V[at] is in the set`, inline for small sets. */
function inSet4(set: IpSet, ctx: EmitContext, at: number): string {
  if (set.rangeCount4 > INLINE_IP_RANGES) return `${ctx.constant(set)}.hasUint32(V[${at}])`;
  const { starts4, ends4 } = set.toParts();
  const x = `V[${at}]`;
  const alts = Array.from(starts4, (lo, i) => (lo === ends4[i] ? `${x} === ${lo}` : `(${x} >= ${lo} && ${x} <= ${ends4[i]})`));
  return `(${alts.join(' || ')})`;
}

/** `IPv6 words W[w..w+4) are in the set`, inline for small sets: each range as a lexicographic compare. */
function inSet6(set: IpSet, ctx: EmitContext, w: number): string {
  if (set.rangeCount6 > INLINE_IP_RANGES) return `${ctx.constant(set)}.hasWords(W[${w}], W[${w + 1}], W[${w + 2}], W[${w + 3}])`;
  const { starts6, ends6 } = set.toParts();
  const alts: string[] = [];
  for (let r = 0; r < set.rangeCount6; r++) alts.push(inRange6(Array.from(starts6.subarray(4 * r, 4 * r + 4)), Array.from(ends6.subarray(4 * r, 4 * r + 4)), w));
  return `(${alts.join(' || ')})`;
}

/** The words at W[w..w+4) between `lo` and `hi` (four words each, most significant first), both included. */
function inRange6(lo: number[], hi: number[], w: number): string {
  const W = (j: number) => `W[${w + j}]`;
  const tests: string[] = [];
  let j = 0;
  // Leading words the two ends share must be equal; from the first that differs the address must be
  // at least `lo` and at most `hi` on the remaining words.
  for (; j < 4 && lo[j] === hi[j]; j++) tests.push(`${W(j)} === ${lo[j]}`);
  if (j < 4) {
    // At least lo[j..]: free once the rest of `lo` is all zeros; at most hi[j..]: once the rest of `hi` is all ones.
    const atLeast = (i: number): string => (lo.slice(i).every((x) => x === 0) ? '' : i === 3 ? `${W(3)} >= ${lo[3]}` : `(${W(i)} > ${lo[i]} || (${W(i)} === ${lo[i]} && ${atLeast(i + 1) || 'true'}))`);
    const atMost = (i: number): string => (hi.slice(i).every((x) => x === 0xffffffff) ? '' : i === 3 ? `${W(3)} <= ${hi[3]}` : `(${W(i)} < ${hi[i]} || (${W(i)} === ${hi[i]} && ${atMost(i + 1) || 'true'}))`);
    const a = atLeast(j);
    const b = atMost(j);
    if (a) tests.push(a);
    if (b) tests.push(b);
  }
  return tests.length ? `(${tests.join(' && ')})` : 'true';
}

/**
 * A test on numbers cheap enough to run even when an earlier operand already decided (an inline int
 * set, a compare, a Bool), possibly negated. The decider evaluates these eagerly: bench/decide.ts saw
 * the 50-rule decider deoptimized again and again by compares that a short-circuit reached only rarely.
 */
function cheapNumeric(c: CheckedExpression, node: ExprNode): boolean {
  if (node.kind === 'not') return cheapNumeric(c, node.operand);
  if (node.kind === 'group') return cheapNumeric(c, node.expr);
  const p = c.predicates.get(node.id);
  if (!p) return false;
  if (p.kind === 'bare') return true;
  if (p.kind === 'int') return p.op !== 'bitwise_and';
  return p.kind === 'int-set' && p.values.length + p.ranges.length <= INLINE_SET_MAX;
}

/** Generate the source of the slots decider, or undefined when a rule reads a field slots do not hold. */
export function generateSlotsRuleset(entries: readonly RulesetEntry[]): { source: string; constants: unknown[] } | undefined {
  if (!slotsEligible(entries)) return undefined;
  const constants: unknown[] = [];
  const constant = (v: unknown) => `k[${constants.push(v) - 1}]`;
  const fields = new Set<string>();
  for (const e of entries) for (const p of e.checked.predicates.values()) if (p.lhs.kind === 'field' || p.lhs.kind === 'bit_slice') fields.add(p.lhs.field.name);
  const vars = new Map<string, string>();
  [...fields].forEach((name, i) => vars.set(name, `f${i}`));
  const names = fields.has('ip.proto') ? constant(IP_PROTOCOL_NAMES) : '';
  const ctx: EmitContext = {
    constant,
    field: (name) => vars.get(name)!,
    predicate: (p) => slotPredicate(p, ctx, names),
    eager: cheapNumeric,
  };
  const loads = [...vars].map(([name, v]) => `${v} = V[${SLOT[name]}]`);
  return { source: deciderSource('decideSlots(V, W, m)', [], loads, 's', entries, ctx), constants };
}

/** Build a slots decider from generated source and constants (throws where `new Function` is blocked). */
export function slotsDeciderFrom(source: string, constants: unknown[]): SlotsDecider {
  return (new Function('k', 'h', source) as (k: unknown[], h: typeof SLOT_HELPERS) => SlotsDecider)(constants, SLOT_HELPERS);
}
