/**
 * The checker: types an AST against a scheme and a list catalog, reads every literal by the type its
 * left-hand side wants, and resolves each predicate (side table keyed by node id; the AST is not
 * mutated, as in cel-go's `checker.Check`). It never throws.
 * @module
 */
import type { RE2JS } from 're2js';
import { regexEngine } from './deferred.js';
import { wildcardLiterals } from './wildcard.js';
import type { Diagnostic, Range } from '../diagnostics/index.js';
import type * as A from './ast.js';
import { expressionDiagnostic } from './diagnostics.js';
import { COMPARE_OPERATORS, IN_SET_TYPES } from './operators.js';
import type { FieldDef, FieldType, Scheme } from './scheme.js';
import { readInt, readIp, readString } from './literals.js';
import type { IntOp, IpOp, LhsPlan, Predicate, StringOp, VectorPlan } from './predicates.js';
import { IpSet, compareIpAddress, type IpRange } from '../net/index.js';
import { LIST_KIND_NAMES, LIST_KINDS, ListCatalog, MAX_LIST_NAME, managedListsFor, type BuiltList, type ListKind } from './lists.js';
import { suggest } from '../diagnostics/index.js';
import { doubleBounds, readIntText } from './literals.js';
import { IP_PROTOCOL_NAMES } from '../net/index.js';
import { isValueNode, walk } from './ast.js';
import { ValueChecker, type ExpressionContext } from './value-checker.js';
import { isScalar, typeText, type ValuePlan } from './values.js';
import { print } from './printer.js';

/** The protocol names `ip.proto` can hold (a set: every check of a name asks it). */
const PROTOCOL_NAMES: ReadonlySet<string> = new Set(IP_PROTOCOL_NAMES.filter((n) => n !== undefined && n !== ''));

/** Options of {@link check}. */
export interface CheckOptions {
  scheme: Scheme;
  /** Lists; when absent, any list name is accepted and membership is false (with an info diagnostic). */
  lists?: ListCatalog;
  /** Service token of the managed lists (`svc` → `$svc.anonymizer`). */
  serviceToken?: string;
  /** A filter (default) or a value expression: rewrite-only functions are allowed only in values. */
  context?: ExpressionContext;
  /** The ruleset phase, when known: functions documented for some phases only are refused elsewhere. */
  phase?: string;
}

/** A checked expression: the AST plus the resolved predicate of every leaf, keyed by node id. */
export interface CheckedExpression {
  ast: A.ExprNode;
  predicates: ReadonlyMap<number, Predicate>;
}

/** Check an AST. Diagnostics are appended to `out`. */
export function check(ast: A.ExprNode, options: CheckOptions, out: Diagnostic[]): CheckedExpression {
  const c = new Checker(options, out);
  if (ast && ast.kind === 'bare' && ast.lhs.kind === 'field' && ast.lhs.name === 'true') {
    // A whole-expression `true` is valid (the docs use it): it matches everything.
    out.push(expressionDiagnostic('matches-everything', 'the expression is true: the rule matches everything', ast.range));
    c.predicates.set(ast.id, { kind: 'bare', lhs: { kind: 'value', plan: { kind: 'literal', value: true, type: 'Bool', multi: false }, type: 'Bool' } });
    return { ast, predicates: c.predicates };
  }
  c.expr(ast);
  regexLimit(ast, out);
  return { ast, predicates: c.predicates };
}

/** "Each rule can contain a maximum of 64 regular expressions in its expression" (Rule expressions, the Rules language docs). */
export const MAX_REGEXES = 64;

/** `too-many-regexes` past {@link MAX_REGEXES} `matches` comparisons, at the first one over. */
function regexLimit(ast: A.ExprNode, out: Diagnostic[]): void {
  const found: A.CompareNode[] = [];
  walk(ast, (n) => {
    if (n.kind === 'compare' && n.op === 'matches') found.push(n);
  });
  if (found.length <= MAX_REGEXES) return;
  out.push(
    expressionDiagnostic('too-many-regexes', `the expression has ${found.length} regular expressions (matches); a rule may have at most ${MAX_REGEXES} ("Maximum regular expressions per rule"): join alternatives into one regex, or split the rule`, found[MAX_REGEXES]!.range, {
      data: { limit: MAX_REGEXES, count: found.length },
    }),
  );
}

/** Check a value node (a value expression's root) into its plan; diagnostics are appended to `out`. */
export function checkValue(node: A.ValueNode, options: CheckOptions, out: Diagnostic[]): ValuePlan | undefined {
  const c = new Checker(options, out);
  return c.value(node);
}

class Checker {
  readonly predicates = new Map<number, Predicate>();
  private readonly deprecatedSeen = new Set<string>();
  private readonly listProblemsSeen = new Set<string>();
  private valueChecker: ValueChecker | undefined;

  constructor(
    private readonly options: CheckOptions,
    private readonly out: Diagnostic[],
  ) {}

  /** The checker of calls and indexing, made on first use (most network rules have neither). */
  private get values(): ValueChecker {
    const o = this.options;
    return (this.valueChecker ??= new ValueChecker({ field: (name, range) => this.field(name, range, true), out: this.out, context: o.context ?? 'filter', phase: o.phase, rulesLanguage: o.scheme.rulesLanguage }));
  }

  expr(node: A.ExprNode): void {
    if (!node) return; // a hole left by error recovery (the parser reported it)
    switch (node.kind) {
      case 'logical':
        for (const o of node.operands) this.expr(o);
        return;
      case 'not':
        this.expr(node.operand);
        return;
      case 'group':
        this.expr(node.expr);
        return;
      case 'error':
        return;
      case 'bare':
      case 'compare':
      case 'in': {
        const p = this.predicate(node, false);
        if (p) this.predicates.set(node.id, p);
      }
    }
  }

  /**
   * The predicate of a leaf. `vector`: inside any()/all(), where the left-hand side must be unpacked with
   * [*] (one boolean per item); elsewhere it must not be.
   */
  private predicate(node: A.BareNode | A.CompareNode | A.InNode, vector: boolean | 'either', shape?: { multi: boolean }): Predicate | undefined {
    const lhs = this.lhs(node.lhs);
    if (!lhs) return undefined;
    const multi = lhs.kind === 'value' && lhs.plan.multi;
    if (shape) shape.multi = multi;
    if (vector === 'either') vector = multi;
    if (multi && !vector) {
      this.out.push(
        expressionDiagnostic('array-needs-quantifier', `${print(node)} gives one boolean per item of ${describeLhs(node.lhs)}: write any(${print(node)}) or all(${print(node)})`, node.range, {
          fix: { title: `wrap in any(…)`, edits: [{ range: node.range, newText: `any(${print(node)})` }] },
        }),
      );
      return undefined;
    }
    if (!multi && vector) {
      this.out.push(expressionDiagnostic('quantifier-argument', `any() and all() take one boolean per item: ${print(node)} is a single condition; unpack an array or map with [*], as in any(http.request.headers.names[*] == "x")`, node.range));
      return undefined;
    }
    switch (node.kind) {
      case 'bare':
        return this.bare(node, lhs);
      case 'compare':
        return this.compare(node, lhs);
      case 'in':
        return this.inExpr(node, lhs);
    }
  }

  /**
   * The argument of any()/all() as a vector plan. `scalarOk`: an operand of `and`/`or`/`xor` may be a single
   * condition beside the [*] ones (the docs' `any(cf.bot_management.detection_ids[*] eq 201326593 and
   * cf.waf.credential_check.username_and_password_leaked)`); the combination still needs one [*] operand.
   */
  private vector(node: A.ArgNode, scalarOk = false): VectorPlan | undefined {
    if (isValueNode(node)) {
      const p = this.predicate({ kind: 'bare', id: -1, range: node.range, lhs: node }, true);
      return p ? { kind: 'test', predicate: p } : undefined;
    }
    switch (node.kind) {
      case 'group':
        return this.vector(node.expr, scalarOk);
      case 'not': {
        const item = this.vector(node.operand, scalarOk);
        return item ? { kind: 'not', item } : undefined;
      }
      case 'logical': {
        const items = node.operands.map((o) => this.vector(o, true));
        if (!items.every((i) => i !== undefined)) return undefined;
        const plan: VectorPlan = { kind: 'logical', op: node.op, items: items as VectorPlan[] };
        if (!scalarOk && !hasItems(plan)) {
          this.out.push(expressionDiagnostic('quantifier-argument', `any() and all() take one boolean per item: ${print(node)} holds no [*]; unpack an array or map with [*], as in any(http.request.headers.names[*] == "x")`, node.range));
          return undefined;
        }
        return plan;
      }
      case 'bare':
      case 'compare':
      case 'in': {
        const shape = { multi: false };
        const p = this.predicate(node, scalarOk ? 'either' : true, shape);
        return p ? { kind: shape.multi ? 'test' : 'scalar', predicate: p } : undefined;
      }
      case 'literal':
        this.out.push(expressionDiagnostic('quantifier-argument', `any() and all() take a comparison on [*] items, not a literal`, node.range));
        return undefined;
      default:
        return undefined;
    }
  }

  private bare(node: A.BareNode, lhs: LhsPlan): Predicate | undefined {
    const type = lhsType(lhs);
    if (type === 'Bool') return { kind: 'bare', lhs };
    const name = describeLhs(node.lhs);
    const example = type === 'Int' ? `${name} == 80` : type === 'Ip' ? `${name} == 192.0.2.1` : `${name} == "…"`;
    this.out.push(expressionDiagnostic('not-boolean', `${describeLhs(node.lhs)} is ${article(type)} ${type}, not a condition; compare it, e.g. ${example}`, node.range));
    return undefined;
  }

  private compare(node: A.CompareNode, lhs: LhsPlan): Predicate | undefined {
    const type = lhsType(lhs);
    const info = COMPARE_OPERATORS[node.op];
    if (!info.types.includes(type)) {
      this.operatorMismatch(node, lhs, type, info.print);
      return undefined;
    }
    const out = this.out;
    const field = lhs.kind === 'field' || lhs.kind === 'bit_slice' ? lhs.field : undefined;
    switch (type) {
      case 'Int': {
        const value = readInt(node.rhs, lhs.kind === 'field' ? lhs.field : undefined, out);
        if (value === undefined) return undefined;
        const r = Number.isSafeInteger(value) ? undefined : readIntText(node.rhs.text);
        return r?.ok && r.big !== undefined ? { kind: 'int', lhs, op: node.op as IntOp, value, big: r.big } : { kind: 'int', lhs, op: node.op as IntOp, value };
      }
      case 'String': {
        if (node.op === 'matches' || node.op === 'wildcard' || node.op === 'strict_wildcard') {
          if (node.rhs.form !== 'string' && node.rhs.form !== 'raw') {
            const quoted = JSON.stringify(node.rhs.text);
            this.out.push(
              expressionDiagnostic('literal-type-mismatch', `${COMPARE_OPERATORS[node.op].print} takes a pattern in quotes: ${quoted}`, node.rhs.range, {
                fix: { title: `write ${quoted}`, edits: [{ range: node.rhs.range, newText: quoted }] },
              }),
            );
            return undefined;
          }
          // After matches, a quoted string keeps its backslashes for the regex engine (\d, \.) — wirefilter's regex lexing.
          const source = node.op === 'matches' && node.rhs.form === 'string' ? regexBody(node.rhs.text) : (node.rhs.value ?? '');
          const re = this.regex(node, source);
          return re ? { kind: 'regex', lhs, re, source } : undefined;
        }
        const value = readString(node.rhs, field, out);
        if (value === undefined) return undefined;
        if (field?.name === 'ip.proto' && (node.op === 'eq' || node.op === 'ne')) this.protocolName(value, node.rhs.range);
        return { kind: 'string', lhs, op: node.op as StringOp, value };
      }
      case 'Ip': {
        const ip = readIp(node.rhs, field, out);
        if (!ip) return undefined;
        if (ip.kind === 'cidr') {
          const fixText = `in {${ip.text}}`;
          const fixRange: Range = { start: node.opRange.start, end: node.rhs.range.end };
          const name = describeLhs(node.lhs);
          this.out.push(
            expressionDiagnostic('cidr-outside-set', `a CIDR is only valid inside a set: use ${name} ${node.op === 'ne' ? 'not ' : ''}in {${ip.text}}`, node.rhs.range, {
              fix: node.op === 'eq' ? { title: `use ${name} in {${ip.text}}`, edits: [{ range: fixRange, newText: fixText }] } : undefined,
            }),
          );
          return undefined;
        }
        const value = ip.address;
        return { kind: 'ip', lhs, op: node.op as IpOp, value, set: IpSet.fromRanges([{ first: value, last: value }]) };
      }
      default:
        return undefined;
    }
  }

  private operatorMismatch(node: A.CompareNode, lhs: LhsPlan, type: FieldType, op: string): void {
    const name = describeLhs(node.lhs);
    let hint = '';
    if (type === 'Bool') hint = `; a Bool field is a condition by itself: write ${name} or not ${name}`;
    else if (lhs.kind === 'field' && lhs.field.rawHeader) hint = `; ${name} is raw header bytes: read bits with bit_slice(${name}, start, end)`;
    else {
      const ok = Object.values(COMPARE_OPERATORS).filter((o) => o.types.includes(type)).map((o) => o.print);
      hint = `; ${type} takes ${ok.join(', ')}${IN_SET_TYPES.includes(type) ? ', in {…}' : ''}`;
    }
    this.out.push(expressionDiagnostic('operator-type-mismatch', `'${op}' does not apply to ${name}, ${article(type)} ${type}${hint}`, node.opRange));
  }

  private regex(node: A.CompareNode, value: string): RE2JS | undefined {
    try {
      const RE2 = regexEngine();
      if (node.op === 'matches') return RE2.compile(withoutUnicodeFlag(value));
      const pattern = wildcardToRegex(value);
      if (typeof pattern !== 'string') {
        this.out.push(expressionDiagnostic('invalid-wildcard', `invalid wildcard pattern: ${pattern.problem}`, node.rhs.range));
        return undefined;
      }
      return RE2.compile(pattern, RE2.DOTALL | (node.op === 'wildcard' ? RE2.CASE_INSENSITIVE : 0));
    } catch (e) {
      this.out.push(expressionDiagnostic('invalid-regex', `invalid regular expression: ${(e as Error).message}`, node.rhs.range));
      return undefined;
    }
  }

  private inExpr(node: A.InNode, lhs: LhsPlan): Predicate | undefined {
    const type = lhsType(lhs);
    const name = describeLhs(node.lhs);
    if (node.rhs.kind === 'list') return this.inList(node.rhs, node.opRange, lhs, type, name);
    if (!IN_SET_TYPES.includes(type)) {
      this.out.push(
        expressionDiagnostic('operator-type-mismatch', `'in {…}' does not apply to ${name}, ${article(type)} ${type}${type === 'Bool' ? `; write ${name} or not ${name}` : ''}`, node.opRange),
      );
      return undefined;
    }
    const items = node.rhs.items;
    const field = lhs.kind === 'field' ? lhs.field : undefined;
    const before = this.out.length;
    const result = type === 'Int' ? this.intSet(items, lhs, field) : type === 'String' ? this.stringSet(items, lhs, field, name) : this.ipSet(items, lhs, field);
    if (!result && this.out.length === before) {
      // defensive: never leave a rejected set without a word
      this.out.push(expressionDiagnostic('syntax-error', 'this set could not be read', node.rhs.range));
    }
    return result;
  }

  /** The predicate of `in {…}` on an Int: its values and merged ranges; undefined when an item is rejected. */
  private intSet(items: A.SetNode['items'], lhs: LhsPlan, field: FieldDef | undefined): Predicate | undefined {
    let ok = true;
    const values: number[] = [];
    const ranges: [number, number][] = [];
    const spans: Span<number>[] = [];
    // Items beyond ±2^53 become the doubles they bound (doubleBounds); the set as written is kept too.
    let beyond = false;
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      if (item.kind === 'literal') {
        const v = readInt(item, field, this.out);
        if (v === undefined) ok = false;
        else if (!Number.isSafeInteger(v)) {
          beyond = true;
          const d = doubleBounds(exactInt(item.text, v));
          // A literal no double equals is an item no field value can equal: nothing to test.
          if (d.atLeast === d.atMost) {
            values.push(d.atLeast);
            spans.push({ lo: d.atLeast, hi: d.atLeast, index });
          }
        } else {
          values.push(v);
          spans.push({ lo: v, hi: v, index });
        }
      } else {
        const lo = readInt(item.low, field, this.out);
        const hi = readInt(item.high, field, this.out);
        if (lo === undefined || hi === undefined) ok = false;
        else if (Number.isSafeInteger(lo) && Number.isSafeInteger(hi) ? lo > hi : exactInt(item.low.text, lo) > exactInt(item.high.text, hi)) {
          ok = false;
          this.out.push(
            expressionDiagnostic('empty-range', `the range ${item.low.text}..${item.high.text} is empty: its low end is above its high end`, item.range, {
              fix: { title: `write ${item.high.text}..${item.low.text}`, edits: [{ range: item.range, newText: `${item.high.text}..${item.low.text}` }] },
            }),
          );
        } else if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi)) {
          beyond = true;
          const a = doubleBounds(exactInt(item.low.text, lo)).atLeast;
          const z = doubleBounds(exactInt(item.high.text, hi)).atMost;
          if (a <= z) {
            ranges.push([a, z]);
            spans.push({ lo: a, hi: z, index });
          }
        } else {
          ranges.push([lo, hi]);
          spans.push({ lo, hi, index });
        }
      }
    }
    if (!ok) return undefined;
    const count = values.length;
    const unique = sortedUnique(values);
    const merged = mergeIntRanges(ranges);
    // The item-by-item search runs only when the set's normal form lost something: every parse of
    // a well-written set would otherwise pay for a sort of its items.
    if (unique.length < count || merged.length < ranges.length || unique.some((v) => merged.some(([lo, hi]) => v >= lo && v <= hi))) {
      this.overlaps(items, spans, (a, b) => a - b, (lo, hi) => `${lo}..${hi}`);
    }
    return beyond ? { kind: 'int-set', lhs, values: unique, ranges: merged, exact: exactSet(items) } : { kind: 'int-set', lhs, values: unique, ranges: merged };
  }

  /** The predicate of `in {…}` on a String; undefined when an item is rejected. */
  private stringSet(items: A.SetNode['items'], lhs: LhsPlan, field: FieldDef | undefined, name: string): Predicate | undefined {
    let ok = true;
    const values = new Set<string>();
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      if (item.kind === 'range') {
        ok = false;
        this.out.push(expressionDiagnostic('literal-type-mismatch', `ranges apply to Int and Ip sets; ${name} is a String`, item.range));
        continue;
      }
      const v = readString(item, field, this.out);
      if (v === undefined) ok = false;
      else if (values.has(v)) this.duplicate(items, index, `${item.text} is already in the set`);
      else {
        if (field?.name === 'ip.proto') this.protocolName(v, item.range);
        values.add(v);
      }
    }
    return ok ? { kind: 'string-set', lhs, values } : undefined;
  }

  /** The predicate of `in {…}` on an Ip: addresses, CIDRs and ranges as one set; undefined when an item is rejected. */
  private ipSet(items: A.SetNode['items'], lhs: LhsPlan, field: FieldDef | undefined): Predicate | undefined {
    let ok = true;
    const ranges: IpRange[] = [];
    const spans: Span<IpRange['first']>[] = [];
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      if (item.kind === 'literal') {
        const ip = readIp(item, field, this.out);
        if (!ip) ok = false;
        else {
          const r = ip.kind === 'address' ? { first: ip.address, last: ip.address } : ip.range;
          ranges.push(r);
          spans.push({ lo: r.first, hi: r.last, index });
        }
      } else {
        const lo = readIp(item.low, field, this.out);
        const hi = readIp(item.high, field, this.out);
        if (!lo || !hi) ok = false;
        else if (lo.kind !== 'address' || hi.kind !== 'address') {
          ok = false;
          this.out.push(expressionDiagnostic('invalid-ip', 'the ends of an IP range are single addresses, not CIDRs', item.range));
        } else if (lo.address.family !== hi.address.family) {
          ok = false;
          this.out.push(expressionDiagnostic('ip-family-mismatch', `the range ${item.low.text}..${item.high.text} mixes IPv4 and IPv6`, item.range));
        } else if (compareIpAddress(lo.address, hi.address) > 0) {
          ok = false;
          this.out.push(expressionDiagnostic('empty-range', `the range ${item.low.text}..${item.high.text} is empty: its low end is above its high end`, item.range));
        } else {
          ranges.push({ first: lo.address, last: hi.address });
          spans.push({ lo: lo.address, hi: hi.address, index });
        }
      }
    }
    if (!ok) return undefined;
    const set = IpSet.fromRanges(ranges);
    // As for Int sets: only a set whose index merged items can hold covered or overlapping ones.
    if (set.rangeCount4 + set.rangeCount6 < ranges.length) this.overlaps(items, spans, compareIpAddress);
    return { kind: 'ip-set', lhs, set };
  }

  /**
   * Warn about set items that another item already covers (`{80 80}`, `{10.0.0.0/8 10.1.0.0/16}`) or
   * overlaps (`{1..10 5..20}`), with a fix that removes the covered item or merges the two ranges.
   * One sort and a sweep: a covered item lies within the widest earlier-starting item.
   */
  private overlaps<T>(items: A.SetNode['items'], spans: Span<T>[], cmp: (a: T, b: T) => number, rangeText?: (lo: T, hi: T) => string): void {
    if (spans.length < 2) return;
    const sorted = [...spans].sort((a, b) => cmp(a.lo, b.lo) || cmp(b.hi, a.hi) || a.index - b.index);
    let cover = sorted[0]!;
    for (let i = 1; i < sorted.length; i++) {
      const e = sorted[i]!;
      // Sorted by start, so e starts within cover when it starts before cover's end (IPv4 sorts before IPv6).
      if (cmp(e.lo, cover.hi) <= 0) {
        if (cmp(e.hi, cover.hi) <= 0) {
          const [kept, dropped] = e.index < cover.index && cmp(e.lo, cover.lo) === 0 && cmp(e.hi, cover.hi) === 0 ? [e, cover] : [cover, e];
          const what = cmp(e.lo, cover.lo) === 0 && cmp(e.hi, cover.hi) === 0 ? 'is already in the set' : `is inside ${textOf(items[kept.index]!)}`;
          this.duplicate(items, dropped.index, `${textOf(items[dropped.index]!)} ${what}`);
          if (dropped === cover) cover = e;
          continue;
        }
        const first = Math.min(e.index, cover.index);
        const second = Math.max(e.index, cover.index);
        const merged = rangeText?.(cover.lo, e.hi);
        const a = items[first]!;
        const b = items[second]!;
        this.out.push(
          expressionDiagnostic('duplicate-set-item', `${textOf(b)} overlaps ${textOf(a)}${merged ? `; write them as one range ${merged}` : ''}`, b.range, {
            fix: merged ? { title: `merge into ${merged}`, edits: [{ range: a.range, newText: merged }, removeItemEdit(items, second)] } : undefined,
          }),
        );
      }
      if (cmp(e.hi, cover.hi) > 0) cover = e;
    }
  }

  private duplicate(items: A.SetNode['items'], index: number, message: string): void {
    this.out.push(expressionDiagnostic('duplicate-set-item', `${message}; remove it`, items[index]!.range, { fix: { title: `remove ${textOf(items[index]!)}`, edits: [removeItemEdit(items, index)] } }));
  }

  /** `ip.proto` values are IANA keywords in lower case (or the decimal number of one without a keyword). */
  private protocolName(value: string, range: Range): void {
    if (PROTOCOL_NAMES.has(value)) return;
    const lower = value.toLowerCase();
    if (PROTOCOL_NAMES.has(lower)) {
      this.out.push(
        expressionDiagnostic('uppercase-protocol', `ip.proto values are lower case: "${value}" never matches; write "${lower}"`, range, {
          fix: { title: `write "${lower}"`, edits: [{ range, newText: JSON.stringify(lower) }] },
        }),
      );
      return;
    }
    const guess = suggest(lower, IP_PROTOCOL_NAMES.filter((n) => !/^\d+$/.test(n)));
    this.out.push(
      expressionDiagnostic('unknown-protocol', `${JSON.stringify(value)} is not an IP protocol name (ip.proto is "tcp", "udp", "icmp", "ipv6-icmp", "gre"... in lower case)${guess ? `; did you mean "${guess}"?` : ''}`, range, {
        fix: guess ? { title: `write "${guess}"`, edits: [{ range, newText: JSON.stringify(guess) }] } : undefined,
      }),
    );
  }

  /**
   * `lhs in $list`: the kinds of list the field takes (LIST_KINDS), the list's kind checked against them,
   * and the predicate of that kind. A list the caller did not give is taken as an empty list of the kind
   * the field takes.
   */
  private inList(node: A.ListNode, opRange: Range, lhs: LhsPlan, type: FieldType, name: string): Predicate | undefined {
    const field = lhs.kind === 'field' ? lhs.field.name : undefined;
    const takes = LIST_KIND_NAMES.filter((k) => (LIST_KINDS[k].fields === 'Ip' ? type === 'Ip' : field !== undefined && LIST_KINDS[k].fields.includes(field)));
    if (!takes.length) {
      // The kinds whose fields this scheme has (a network scheme: IP fields only).
      const here = LIST_KIND_NAMES.filter((k) => LIST_KINDS[k].fields === 'Ip' || (LIST_KINDS[k].fields as readonly string[]).some((f) => this.options.scheme.get(f)));
      const kinds = here.map((k) => `${listFields(k)} (${LIST_KINDS[k].title} lists)`).join(', ');
      this.out.push(expressionDiagnostic('operator-type-mismatch', `'in $list' applies to ${kinds}; ${name} is ${article(type)} ${type}`, opRange));
      return undefined;
    }
    const found = this.list(node);
    if (found === undefined) return undefined;
    const built: BuiltList = found ?? emptyList(takes[0]!);
    if (!takes.includes(built.kind)) {
      this.out.push(
        expressionDiagnostic('list-kind-mismatch', `$${node.name} is ${article(LIST_KINDS[built.kind].title)} ${LIST_KINDS[built.kind].title} list, but ${name} takes ${takes.map((k) => `${LIST_KINDS[k].title} lists`).join(' or ')}; ${LIST_KINDS[built.kind].title} lists go with ${listFields(built.kind)}`, node.range, {
          data: { list: node.name, kind: built.kind, expected: takes },
        }),
      );
      return undefined;
    }
    const phase = LIST_KINDS[built.kind].phase;
    if (phase && this.options.phase !== undefined && this.options.phase !== phase) {
      this.out.push(expressionDiagnostic('list-kind-mismatch', `$${node.name} is a ${built.kind} list: ${built.kind} lists are read by the ${phase} phase only, not ${this.options.phase}`, node.range, { data: { list: node.name, kind: built.kind, phase } }));
      return undefined;
    }
    switch (built.kind) {
      case 'ip': return { kind: 'ip-set', lhs, set: built.set, list: node.name };
      case 'asn': return { kind: 'int-set', lhs, values: built.values, ranges: [] };
      default: return { kind: 'string-list', lhs, set: built.set, list: node.name, listKind: built.kind };
    }
  }

  /**
   * The managed-list prefixes an expression may use: the deployment's service token (`svc`, as the
   * network rules of docs/expressions.md write it) and `cf`, as Cloudflare's docs spell the managed lists of the HTTP phases and of Magic Transit.
   */
  private managedPrefixes(): string[] {
    const given = this.options.serviceToken ?? 'svc';
    return this.options.scheme.rulesLanguage || this.options.phase === 'magic_transit' ? [...new Set(['cf', given])] : [given];
  }

  /** A list by name: the built list, `null` when the catalog does not carry it (said, membership false), undefined on an error. */
  private list(node: A.ListNode): BuiltList | null | undefined {
    const name = node.name;
    if (name.length === 0) return undefined; // the lexer reported it
    const managedNames = this.managedPrefixes().flatMap((token) => managedListsFor(this.options.scheme.rulesLanguage).map((m) => `${token}.${m}`));
    if (name.includes('.') && !this.options.lists?.entry(name)) {
      if (!managedNames.includes(name)) {
        const guess = suggest(name, managedNames);
        this.out.push(
          expressionDiagnostic('unknown-list', `$${name} is not a managed list (${managedNames.map((m) => '$' + m).join(', ')})${guess ? `; did you mean $${guess}?` : ''}`, node.range, {
            fix: guess ? { title: `replace with $${guess}`, edits: [{ range: node.range, newText: `$${guess}` }] } : undefined,
          }),
        );
        return undefined;
      }
    } else if (name.length > MAX_LIST_NAME) {
      this.out.push(expressionDiagnostic('list-name-too-long', `list names have at most ${MAX_LIST_NAME} characters; $${name.slice(0, 20)}… has ${name.length}`, node.range, { data: { limit: MAX_LIST_NAME, length: name.length } }));
      return undefined;
    }
    const lists = this.options.lists;
    if (!lists) {
      this.out.push(expressionDiagnostic('list-not-provided', `no items were given for $${name}: membership is false for every packet`, node.range));
      return null;
    }
    const set = lists.entry(name);
    if (!set && managedNames.includes(name)) {
      // Managed lists are optional inputs: a catalog of account lists need not carry them.
      this.out.push(expressionDiagnostic('list-not-provided', `no items were given for $${name}: membership is false for every packet`, node.range));
      return { kind: 'ip', set: IpSet.fromRanges([]) };
    }
    if (!set && lists.problems.has(name)) {
      // Given, but not as a list rulekit could build (an unknown kind): its problems say why.
      for (const p of lists.problems.get(name)!) this.out.push({ ...p, severity: 'error', range: { ...node.range } });
      return undefined;
    }
    if (!set) {
      const guess = suggest(name, lists.names());
      this.out.push(
        expressionDiagnostic('unknown-list', `$${name} is not in the list catalog${guess ? `; did you mean $${guess}?` : ''}`, node.range, {
          fix: guess ? { title: `replace with $${guess}`, edits: [{ range: node.range, newText: `$${guess}` }] } : undefined,
        }),
      );
      return undefined;
    }
    const problems = lists.problems.get(name);
    if (problems && !this.listProblemsSeen.has(name)) {
      this.listProblemsSeen.add(name);
      for (const p of problems) this.out.push({ ...p, range: { ...node.range } });
    }
    return set;
  }

  private lhs(node: A.LhsNode): LhsPlan | undefined {
    if (!node) return undefined;
    if (node.kind === 'field') {
      const field = this.field(node.name, node.range);
      return field ? { kind: 'field', field } : undefined;
    }
    if (node.kind === 'call') {
      const fn = this.values.function(node);
      if (!fn) return undefined;
      if (fn.check) return fn.check(node, (name, range) => this.field(name, range), this.out);
      if (fn.quantifier) return this.quantifier(node, fn.quantifier);
    }
    const plan = this.values.value(node);
    if (!plan) return undefined;
    if (!isScalar(plan.type)) {
      const t = typeText(plan.type);
      const text = print(node);
      const example = t.startsWith('Map') ? `any(${text}["key"][*] == …)` : `any(${text}[*] == …)`;
      this.out.push(expressionDiagnostic('container-field', `${text} is ${/^[AEIOU]/.test(t) ? 'an' : 'a'} ${t}: it is not compared as a whole; its items are read with [ ] or [*], as in ${example}`, node.range, { data: { type: t } }));
      return undefined;
    }
    return { kind: 'value', plan, type: plan.type };
  }

  /** A value expression's root: a value, not compared. */
  value(node: A.ValueNode): ValuePlan | undefined {
    if (node.kind === 'call' && FUNCTIONS_EXAMPLE[node.name as 'any'] !== undefined) {
      // any()/all() give a Bool: checked here, typed only (a Bool value expression is checked as a filter).
      const lhs = this.lhs(node);
      return lhs ? { kind: 'literal', value: undefined, type: 'Bool', multi: false } : undefined;
    }
    const plan = this.values.value(node);
    if (plan?.multi) {
      this.out.push(expressionDiagnostic('array-needs-quantifier', `${print(node)} is every item of an array, not one value: read one with [0]`, node.range));
      return undefined;
    }
    return plan;
  }

  private quantifier(node: A.CallNode, op: 'any' | 'all'): LhsPlan | undefined {
    if (node.args.length !== 1) {
      this.out.push(expressionDiagnostic('function-arguments', `${op}() takes one argument, a comparison on [*] items, e.g. ${FUNCTIONS_EXAMPLE[op]}`, node.range));
      return undefined;
    }
    const arg = node.args[0]!;
    if (isValueNode(arg)) {
      // An Array<Bool> value itself (not unpacked) stands for its items.
      const plan = this.values.value(arg);
      if (!plan) return undefined;
      if (!plan.multi && !isScalar(plan.type) && 'array' in plan.type && plan.type.array === 'Bool') {
        const items: ValuePlan = { kind: 'star', target: plan, type: 'Bool', multi: true };
        return { kind: 'quantifier', op, arg: { kind: 'test', predicate: { kind: 'bare', lhs: { kind: 'value', plan: items, type: 'Bool' } } } };
      }
    }
    const v = this.vector(arg);
    return v ? { kind: 'quantifier', op, arg: v } : undefined;
  }

  private field(name: string, range: Range, allowContainer = false): FieldDef | undefined {
    if (name === '') return undefined; // recovery placeholder; the parser reported the error
    const f = this.options.scheme.get(name);
    if (f?.container && allowContainer) return f;
    if (f?.container) {
      const example = f.container.startsWith('Map') ? `any(${name}["key"][*] == …)` : `any(${name}[*] == …)`;
      this.out.push(expressionDiagnostic('container-field', `${name} is ${/^[AEIOU]/.test(f.container) ? 'an' : 'a'} ${f.container}: it is not compared as a whole; its items are read with [ ] or [*], as in ${example}`, range, { data: { field: name, type: f.container } }));
      return undefined;
    }
    if (f) {
      if (f.deprecated && !this.deprecatedSeen.has(name)) {
        this.deprecatedSeen.add(name);
        this.out.push(expressionDiagnostic('deprecated-field', `${name} is deprecated: ${f.deprecated}`, range));
      }
      return f;
    }
    if (name === 'true' || name === 'false') {
      this.out.push(
        this.options.scheme.rulesLanguage
          ? expressionDiagnostic('boolean-literal', `${name} is valid only as the whole expression (true matches every request); inside an expression use a condition such as ssl or not ssl`, range)
          : expressionDiagnostic('boolean-literal', `${name} is valid only as the whole expression (true matches every packet); inside an expression use a condition such as ip.src in {0.0.0.0/0 ::/0}`, range),
      );
      return undefined;
    }
    // Wireshark's `udp.port` (either port) has two fields here; name both rather than a near spelling.
    const portPair = /^([a-z0-9_]+)\.port$/.exec(name);
    if (portPair && this.options.scheme.get(`${portPair[1]}.dstport`) && this.options.scheme.get(`${portPair[1]}.srcport`)) {
      const dst = `${portPair[1]}.dstport`;
      const src = `${portPair[1]}.srcport`;
      this.out.push(
        expressionDiagnostic('unknown-field', `unknown field ${name}; did you mean ${dst} or ${src}? (for either port: ${dst} == N or ${src} == N)`, range, {
          fix: { title: `replace with ${dst}`, edits: [{ range, newText: dst }] },
          data: { suggestion: dst, alternatives: [dst, src] },
        }),
      );
      return undefined;
    }
    const guess = suggest(name, this.options.scheme.names());
    this.out.push(
      expressionDiagnostic('unknown-field', `unknown field ${name}${guess ? `; did you mean ${guess}?` : ''}`, range, {
        fix: guess ? { title: `replace with ${guess}`, edits: [{ range, newText: guess }] } : undefined,
        data: guess ? { suggestion: guess } : undefined,
      }),
    );
    return undefined;
  }
}

/**
 * The service's regex engine (Rust's regex) takes a `u` flag, Unicode mode (`(?u)\p{Hangul}+` in the docs);
 * RE2JS is always in Unicode mode and rejects the flag, so it is dropped from inline flag groups.
 */
function withoutUnicodeFlag(pattern: string): string {
  if (!pattern.includes('u')) return pattern;
  return pattern.replace(/\(\?([a-zA-Z-]*)\)/g, (m, flags: string) => {
    const rest = flags.replace(/u/g, '');
    return rest === flags ? m : rest === '' || rest === '-' ? '' : `(?${rest})`;
  });
}

/** The pattern of a quoted string after `matches`: the text between the quotes, only \" unescaped. */
function regexBody(text: string): string {
  const closed = text.length >= 2 && text.endsWith('"') && !text.endsWith('\\"');
  return text.slice(1, closed ? -1 : undefined).replace(/\\"/g, '"');
}

/**
 * A wildcard pattern as an anchored RE2 pattern: `*` is any run of characters, `\*` a literal star,
 * `\\` a literal backslash; `**` and any other backslash are errors.
 */
export function wildcardToRegex(value: string): string | { problem: string } {
  const runs = wildcardLiterals(value);
  if (!Array.isArray(runs)) return runs;
  const RE2 = regexEngine();
  return `^(?:${runs.map((r) => RE2.quote(r)).join('.*')})$`;
}

/** A set item's covered span, with its index among the set's items. */
interface Span<T> {
  lo: T;
  hi: T;
  index: number;
}

function textOf(item: A.SetNode['items'][number]): string {
  return item.kind === 'range' ? `${item.low.text}..${item.high.text}` : item.text;
}

/** The edit that removes a set item with the space before it (or after it, for the first item). */
function removeItemEdit(items: A.SetNode['items'], index: number): { range: Range; newText: string } {
  const item = items[index]!;
  const prev = items[index - 1];
  const next = items[index + 1];
  if (prev) return { range: { start: prev.range.end, end: item.range.end }, newText: '' };
  if (next) return { range: { start: item.range.start, end: next.range.start }, newText: '' };
  return { range: item.range, newText: '' };
}

const FUNCTIONS_EXAMPLE = {
  any: 'any(http.request.headers.names[*] == "x-debug")',
  all: 'all(http.request.headers["content-type"][*] == "application/json")',
};

function lhsType(lhs: LhsPlan): FieldType {
  switch (lhs.kind) {
    case 'bit_slice':
      return 'Int';
    case 'field':
      return lhs.field.type;
    case 'value':
      return lhs.type;
    case 'quantifier':
      return 'Bool';
  }
}

function describeLhs(node: A.LhsNode): string {
  return node.kind === 'field' ? node.name : node.kind === 'call' ? `${node.name}(…)` : print(node);
}

function article(type: string): string {
  return /^[AEIOUaeiou]/.test(type) ? 'an' : 'a';
}

/** Sort numbers and drop repeats, in place. */
function sortedUnique(values: number[]): number[] {
  values.sort((a, b) => a - b);
  let w = 0;
  for (let i = 0; i < values.length; i++) if (i === 0 || values[i] !== values[w - 1]) values[w++] = values[i]!;
  values.length = w;
  return values;
}

/** Sort and merge overlapping or adjacent inclusive integer ranges. */
function mergeIntRanges(ranges: [number, number][]): [number, number][] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/** The 64-bit integer an Int literal's text says (`value` is its nearest double, read already). */
function exactInt(text: string, value: number): bigint {
  if (Number.isSafeInteger(value)) return BigInt(value);
  const r = readIntText(text);
  return r.ok && r.big !== undefined ? r.big : BigInt(value);
}

/** A checked Int set (every item read without error) as 64-bit integers, for the int-set predicate's `exact`. */
function exactSet(items: readonly (A.LiteralNode | A.RangeNode)[]): { values: bigint[]; ranges: [bigint, bigint][] } {
  const values: bigint[] = [];
  const ranges: [bigint, bigint][] = [];
  const read = (lit: A.LiteralNode) => {
    const r = readIntText(lit.text);
    return r.ok ? (r.big ?? BigInt(r.value)) : 0n;
  };
  for (const item of items) {
    if (item.kind === 'literal') values.push(read(item));
    else ranges.push([read(item.low), read(item.high)]);
  }
  return { values, ranges };
}

/** The fields a kind of list goes with, for messages. */
function listFields(kind: ListKind): string {
  const f = LIST_KINDS[kind].fields;
  return f === 'Ip' ? 'IP fields' : f.join(', ');
}

/** An empty list of a kind: what a list the caller did not give holds. */
function emptyList(kind: ListKind): BuiltList {
  switch (kind) {
    case 'ip': return { kind, set: IpSet.fromRanges([]) };
    case 'asn': return { kind, values: [] };
    default: return { kind, set: { has: () => false } };
  }
}

/** Whether a vector plan reads [*] items somewhere (a combination of single conditions only does not). */
function hasItems(v: VectorPlan): boolean {
  return v.kind === 'test' || (v.kind === 'not' ? hasItems(v.item) : v.kind === 'logical' && v.items.some(hasItems));
}
