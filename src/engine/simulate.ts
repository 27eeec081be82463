/**
 * Simulation: every enabled rule compiled once, then packets run through the ruleset in order. Per packet:
 * the verdict (`allow`/`block`), the rule that decided it (index, id, ref, description) or none, and every
 * rule that matched on the way. `skip` with `ruleset: "current"` ends evaluation (allowed); `block` ends it
 * (dropped); disabled rules are passed over; a packet no terminating rule matches is allowed.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors, suggest } from '../diagnostics/index.js';
import { compile, HTTP_SCHEME, ListCatalog, NETWORK_SCHEME, referencedFields, type ExpressionOptions, type Packet, type Scheme } from '../expression/index.js';
import type { GeoIpLookup } from '../capture/index.js';
import {
  ACTION_CATALOG,
  actionTerminates,
  checkedExpression,
  copyDiagnostics,
  isHttpRuleset,
  phaseExpressionOptions,
  phaseInfo,
  rulesetDiagnostic,
  rulesetShapeProblems,
  type Rule,
  type RuleAction,
  type Ruleset,
} from '../ruleset/index.js';
import { checkPacketValues } from './packet-values.js';
import type { RuleRef, PacketVerdict, RuleSummary, SimulationSummary, Verdict } from './summary.js';
import type { RulesetDecider, RulesetEntry, SlotsDecider } from './decider.js';
import { compileRulesetDecider } from './decider-codegen.js';
import { generateSlotsRuleset, slotsDeciderFrom } from './slots-codegen.js';
import { RulesetTally, countPacket, countSlots, type TallyRules } from './tally.js';
import { portableConstants, type PortableRuleset } from './portable.js';
import { frameCounter, type FrameCounter, type FrameOptions } from './frame-counter.js';

/** Options of {@link compileRuleset}. */
export interface SimulationOptions extends Omit<ExpressionOptions, 'lists'> {
  lists?: ExpressionOptions['lists'];
  /** How many example packets to keep per rule in the summary (default 3). */
  examplesPerRule?: number;
  /**
   * Country/ASN table for {@link simulate}: packets that lack `ip.src.country`, `ip.dst.country`,
   * `ip.src.asnum` or `ip.dst.asnum` get them from their addresses (the caller's objects are not changed).
   */
  geoip?: GeoIpLookup;
  /**
   * `auto` (default): captured frames are decided on numeric slots when every rule reads only slot fields
   * (src/capture/slots.ts), else on packet objects; `objects`: always on packet objects (tests compare).
   */
  decoder?: 'auto' | 'objects';
}

/** The fields a table can fill, by side. */
const GEO_SIDES = [
  ['ip.src', 'ip.src.country', 'ip.src.asnum'],
  ['ip.dst', 'ip.dst.country', 'ip.dst.asnum'],
] as const;

/**
 * A packet with the country and AS number of its addresses filled from `geoip` where it lacks them: a
 * copy when something was added, else the packet itself (never changed).
 */
export function withGeoIp(packet: Packet, geoip: GeoIpLookup): Packet {
  let out: Record<string, unknown> | undefined;
  for (const [addr, country, asn] of GEO_SIDES) {
    const text = packet[addr];
    if (typeof text !== 'string' || (packet[country] !== undefined && packet[asn] !== undefined)) continue;
    const info = geoip.lookup(text);
    if (!info) continue;
    if (packet[country] === undefined && info.country !== undefined) (out ??= { ...packet })[country] = info.country;
    if (packet[asn] === undefined && info.asn !== undefined) (out ??= { ...packet })[asn] = info.asn;
  }
  return out ?? packet;
}

/** Whether a ruleset reads country or ASN fields (which only a geo/ASN table or the packets provide). */
export function readsGeoFields(fields: ReadonlySet<string>): boolean {
  for (const f of fields) if (f.endsWith('.country') || f.endsWith('.asnum')) return true;
  return false;
}

/**
 * The rules a compiled ruleset decides with, in order: for a decider of two rulesets at once (the diff's
 * counts, src/diff/pair-decider.ts). Kept beside the class, not on it: not part of its public shape.
 */
const compiledEntries = new WeakMap<CompiledRuleset, readonly RulesetEntry[]>();

/** The rules {@link CompiledRuleset} decides with (enabled, checked without errors), in order. */
export function rulesetEntries(compiled: CompiledRuleset): readonly RulesetEntry[] {
  return compiledEntries.get(compiled)!;
}

/** A ruleset compiled for simulation. Feed it packets one by one (streaming) and read the summary. */
export class CompiledRuleset {
  /** Diagnostics of compiling the rules (expression diagnostics re-based to `/rules/N/expression`). */
  readonly diagnostics: Diagnostic[];
  /** The fields the enabled rules read: a capture decoder can skip the rest. */
  readonly fields: ReadonlySet<string>;
  /** Refs of the rules by index (undefined for rules left out). */
  private readonly refs: RuleRef[] = [];
  private readonly decider: RulesetDecider;
  private readonly anyNonTerminating: boolean;
  private readonly tallyRules: TallyRules;
  private readonly tally: RulesetTally;
  private generated: { source: string; constants: unknown[] } | undefined;
  private slotsGenerated: { source: string; constants: unknown[] } | undefined;
  /**
   * The decider on numeric slots (src/capture/slots.ts), when every rule reads only slot fields: a
   * capture can then be decided without building packet objects ({@link CompiledRuleset.countSlots}).
   */
  readonly slotsDecider: SlotsDecider | undefined;

  constructor(ruleset: Ruleset | { rules: readonly Rule[] }, options: SimulationOptions = {}) {
    this.diagnostics = [];
    const entries: RulesetEntry[] = [];
    const summaryRules: RuleSummary[] = [];
    const actions: (RuleAction | undefined)[] = [];
    const terminatingAt: boolean[] = [];
    const fields = new Set<string>();
    const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
    const rules = Array.isArray(ruleset?.rules) ? ruleset.rules : [];
    // An HTTP phase's rules read the HTTP fields and take every action of the catalog; a network phase's
    // rules are decided by skip and block.
    const phase = (ruleset as { phase?: unknown })?.phase;
    const http = typeof phase === 'string' && phaseInfo(phase)?.fields === 'http';
    const exprOptions = http ? phaseExpressionOptions(phase, options) : options;
    rules.forEach((rule, index) => {
      const ref: RuleRef = { index, action: rule.action };
      if (rule.id !== undefined) ref.id = rule.id;
      if (rule.ref !== undefined) ref.ref = rule.ref;
      if (rule.description !== undefined) ref.description = rule.description;
      const enabled = rule.enabled !== false;
      summaryRules.push({ ...ref, enabled, expression: String(rule.expression ?? ''), matched: 0, decided: 0, examples: [] });
      if (!enabled) return;
      if (http ? !Object.hasOwn(ACTION_CATALOG, rule.action) : rule.action !== 'skip' && rule.action !== 'block') {
        // A network phase's managed rules (magic_transit_managed, ddos_l4) execute rulesets this input does
        // not hold: said, not silently dropped.
        if (!http && (rule.action as string) === 'execute') {
          this.diagnostics.push(rulesetDiagnostic('simulation-execute-not-run', `rule ${index} executes another ruleset: a packet simulation leaves it out (the rules it executes are not known here), so it never matches`, `/rules/${index}/action`));
        }
        return;
      }
      // The check a validation of the same ruleset (with the same lists) did is reused (check-cache.ts).
      // A whole-expression `true` is decided by a tautology over one field (true whether the field is there
      // or missing), so the simulation does not repeat its matches-everything info.
      const whole = http && typeof rule.expression === 'string' && rule.expression.trim() === 'true';
      const checked = whole ? checkedExpression('not (ssl and not ssl)', { ...exprOptions, lists }) : checkedExpression(rule.expression, { ...exprOptions, lists });
      for (const d of copyDiagnostics(checked.diagnostics)) this.diagnostics.push({ ...d, pointer: `/rules/${index}/expression`, rangeIn: 'value' });
      if (hasErrors(checked.diagnostics)) return;
      if (!checked.checked) {
        // Defensive: an expression without errors has a checked tree; were it missing, the rule is said to be left out.
        this.diagnostics.push(rulesetDiagnostic('simulation-rule-left-out', `rule ${index} uses a construct rulekit cannot evaluate yet; it is left out of the simulation (it never matches here)`, `/rules/${index}/expression`));
        return;
      }
      for (const f of referencedFields(checked.ast!)) fields.add(f);
      const terminating = actionTerminates(rule.action, rule.action_parameters);
      entries.push({ index, checked: checked.checked, matcher: compile(checked.checked, { codegen: options.codegen }), terminating });
      this.refs[index] = ref;
      actions[index] = rule.action;
      terminatingAt[index] = terminating;
    });
    // derived fields read their sources
    if (fields.has('ip.geoip.country')) ['ip.src.country', 'ip.dst.country'].forEach((f) => fields.add(f));
    if (fields.has('ip.geoip.asnum')) fields.add('ip.src.asnum');
    this.fields = fields;
    compiledEntries.set(this, entries);
    this.anyNonTerminating = entries.some((e) => !e.terminating);
    this.decider = compileRulesetDecider(entries, { codegen: options.codegen, generated: (g) => (this.generated = g) });
    if (this.generated && options.decoder !== 'objects') {
      // The same rules on numeric slots, for captures (src/capture/slots.ts): only when every field is one.
      const slots = generateSlotsRuleset(entries);
      if (slots) {
        try {
          this.slotsDecider = slotsDeciderFrom(slots.source, slots.constants);
          this.slotsGenerated = slots;
        } catch {
          // no code generation: the object path only
        }
      }
    }
    this.tallyRules = { rules: summaryRules, actions, terminatingAt, examplesPerRule: options.examplesPerRule ?? 3 };
    this.tally = new RulesetTally(this.tallyRules);
  }

  /** True when a rule could not be compiled (see `diagnostics`). */
  get hasErrors(): boolean {
    return hasErrors(this.diagnostics);
  }

  /** Decide one packet without recording it in the summary. */
  decide(packet: Packet): PacketVerdict {
    const matched: number[] = [];
    const i = this.decider(packet, this.anyNonTerminating ? matched : undefined);
    if (i < 0) return { verdict: 'allow', matched };
    matched.push(i);
    const ref = this.refs[i]!;
    return { verdict: verdictOf(ref.action), decidedBy: ref, matched };
  }

  /** Decide one packet and record it in the summary. */
  run(packet: Packet, index = this.tally.packets): PacketVerdict {
    const v = this.decide(packet);
    this.tally.transient = false;
    this.tally.record(v.decidedBy ? v.decidedBy.index : -1, v.matched, packet, index);
    return v;
  }

  /**
   * Decide one packet and record it in the summary, allocating nothing when no non-terminating rule
   * matched (the streaming path of `rulekit simulate`). Returns the deciding rule's index or -1.
   * `transient`: the caller reuses `packet` for the next one, so a packet kept as an example is copied.
   */
  count(packet: Packet, index = this.tally.packets, transient = false): number {
    this.tally.transient = transient;
    return countPacket(this.decider, this.anyNonTerminating, this.tally, packet, index);
  }

  /**
   * Decide one packet decoded into slots (`decodeSlots` of src/capture/slots.ts) and record it, as
   * {@link CompiledRuleset.count}; needs {@link CompiledRuleset.slotsDecider}. `example` builds the
   * packet object, called only when the summary keeps the packet as an example.
   */
  countSlots(V: Float64Array, W: Uint32Array, index: number, example: () => Packet): number {
    return countSlots(this.slotsDecider!, this.anyNonTerminating, this.tally, V, W, index, example);
  }

  /**
   * A counter of captured frames into this ruleset's summary (slots or packet objects, as the ruleset
   * allows): what every capture record loop calls.
   */
  frameCounter(options: FrameOptions = {}): FrameCounter {
    return frameCounter(this, options);
  }

  /**
   * Add the figures of another summary of the same ruleset over other packets (a worker thread's share
   * of a capture): counts add up; each rule keeps the examples with the lowest indexes.
   */
  merge(other: SimulationSummary): void {
    this.tally.merge(other);
  }

  /**
   * The compiled ruleset as plain data for another thread (`PortableCounter` of portable.ts runs it there without
   * the expression parser); undefined where the decider was not generated or a constant cannot cross.
   */
  portable(): PortableRuleset | undefined {
    if (!this.generated) return undefined;
    const constants = portableConstants(this.generated.constants);
    if (!constants) return undefined;
    const slotsConstants = this.slotsGenerated && portableConstants(this.slotsGenerated.constants);
    const slots = slotsConstants ? { source: this.slotsGenerated!.source, constants: slotsConstants } : undefined;
    return { source: this.generated.source, constants, slots, tally: this.tallyRules, anyNonTerminating: this.anyNonTerminating, fields: [...this.fields] };
  }

  /** The summary so far. */
  summary(): SimulationSummary {
    return this.tally.summary();
  }
}

/** The verdict of a deciding rule's action: a skip of the rest of the ruleset allows. */
function verdictOf(action: string): Verdict {
  return action === 'skip' ? 'allow' : (action as Verdict);
}

/** Compile a ruleset for simulation. */
export function compileRuleset(ruleset: Ruleset | { rules: readonly Rule[] }, options: SimulationOptions = {}): CompiledRuleset {
  return new CompiledRuleset(ruleset, options);
}

/** What {@link simulate} returns. */
export interface SimulationResult {
  diagnostics: Diagnostic[];
  results: (PacketVerdict & { index: number })[];
  summary: SimulationSummary;
}

/** The most `simulation-invalid-value` warnings one simulation reports; a last one counts the rest. */
export const MAX_VALUE_DIAGNOSTICS = 100;

/** Counts `simulation-invalid-value` warnings and keeps the first {@link MAX_VALUE_DIAGNOSTICS}. */
export class ValueProblems {
  readonly kept: Diagnostic[] = [];
  private dropped = 0;
  /** Keys of packet objects already looked up in the scheme: a misspelt field is reported once, where first seen. */
  private readonly keys = new Set<string>();
  private readonly unknown: Diagnostic[] = [];

  /** `scheme`: the fields the packets may name (an HTTP phase's rulesets decide request records). */
  constructor(private readonly fields: ReadonlySet<string>, private readonly scheme: Scheme = NETWORK_SCHEME) {}

  /** The packet to decide on (bad values removed); `where` names it in messages. */
  check(packet: Packet, where: { text: string; pointer: string }): Packet {
    for (const key in packet) {
      if (this.keys.has(key)) continue;
      this.keys.add(key);
      if (this.scheme.get(key)) continue;
      // A field the scheme lacks is missing to every rule: `tcp.dst_port` would decide as if no port were given.
      const guess = suggest(key, [...this.scheme.names()]);
      this.unknown.push(
        rulesetDiagnostic('simulation-unknown-field', `${where.text}: unknown field ${key}${guess ? `; did you mean ${guess}?` : ''} (rules read it as missing, in this packet and every other)`, where.pointer ? `${where.pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` : '', {
          data: { field: key, ...(guess ? { suggestion: guess } : {}) },
        }),
      );
    }
    const found: Diagnostic[] = [];
    const checked = checkPacketValues(packet, this.fields, where, found);
    for (const d of found) {
      if (this.kept.length < MAX_VALUE_DIAGNOSTICS) this.kept.push(d);
      else this.dropped++;
    }
    return checked;
  }

  /** The kept warnings, and one that counts the rest. */
  diagnostics(): Diagnostic[] {
    if (!this.dropped) return [...this.unknown, ...this.kept];
    return [...this.unknown, ...this.kept, rulesetDiagnostic('simulation-invalid-value', `${this.dropped} more field value(s) of the wrong type were taken as missing`, '', { data: { more: this.dropped } })];
  }
}

/**
 * Run packets through a ruleset. The ruleset is validated first: with errors nothing is simulated and the
 * diagnostics say why. Rules whose expressions have errors are left out and reported.
 *
 * ```ts
 * const { results } = simulate(ruleset, [{ 'tcp.dstport': 22, 'ip.src': '192.0.2.1' }]);
 * results[0].verdict; // 'block'
 * ```
 */
export function simulate(ruleset: Ruleset | { rules: readonly Rule[] }, packets: Iterable<Packet>, options: SimulationOptions = {}): SimulationResult {
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const problems = rulesetShapeProblems(ruleset);
  const empty: SimulationSummary = { packets: 0, verdicts: { allow: 0, block: 0 }, defaultAllowed: 0, rules: [] };
  if (problems.length) return { diagnostics: problems, results: [], summary: empty };
  if (packets === null || typeof packets !== 'object' || typeof (packets as Partial<Iterable<Packet>>)[Symbol.iterator] !== 'function') {
    const what = typeof packets === 'string' ? 'a string' : packets === null ? 'null' : `a ${typeof packets}`;
    return { diagnostics: [...problems, rulesetDiagnostic('simulation-invalid-packet', `the packets are ${what}; give an array (or any iterable) of packet objects`, '/packets')], results: [], summary: empty };
  }
  const compiled = compileRuleset(ruleset, { ...options, lists });
  const geoip = options.geoip;
  const diagnostics: Diagnostic[] = [];
  if (!geoip && readsGeoFields(compiled.fields)) {
    diagnostics.push(rulesetDiagnostic('simulation-no-geoip', 'the ruleset reads country/ASN fields but no geoip table was given: those fields are missing unless the packets carry them', ''));
  }
  const values = new ValueProblems(compiled.fields, isHttpRuleset(ruleset) ? HTTP_SCHEME : NETWORK_SCHEME);
  const results: SimulationResult['results'] = [];
  let index = 0;
  for (const p of packets as Iterable<Packet>) {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) {
      diagnostics.push(rulesetDiagnostic('simulation-invalid-packet', `packet ${index} is not an object`, `/packets/${index}`));
      index++;
      continue;
    }
    const packet = values.check(geoip ? withGeoIp(p, geoip) : p, { text: `packet ${index}`, pointer: `/packets/${index}` });
    results.push({ index, ...compiled.run(packet, index) });
    index++;
  }
  return { diagnostics: [...compiled.diagnostics, ...diagnostics, ...values.diagnostics()], results, summary: compiled.summary() };
}
