/**
 * The rules of a ruleset that can decide a packet, as the simulator runs them (src/engine/simulate.ts):
 * enabled, an action the phase runs (a network phase's skip and block, an HTTP phase's catalog), an
 * expression without errors, and an action that ends the evaluation. Each with the cubes
 * (src/analysis/formula.ts) of the packets its expression matches.
 *
 * What the cubes cannot hold stays sound as an opaque part, a boolean keyed by its printed text (the
 * same text on both sides is the same unknown): regexes, functions and lists not given inside an
 * expression (formula.ts), a whole expression too large for the bounded normal form, and the rate or
 * the leaked credentials that narrow when a rate limiting or exposed credentials rule applies.
 * @module
 */
import { ListCatalog, NETWORK_SCHEME, print, Scheme, type ExpressionOptions } from '../expression/index.js';
import { ACTION_CATALOG, actionTerminates, checkedExpression, phaseExpressionOptions, phaseInfo, type Rule } from '../ruleset/index.js';
import { compileRuleset, type CompiledRuleset, type SimulationOptions } from '../engine/index.js';
import { Normalizer, product, TooComplex, type Cube, type Domain } from '../analysis/index.js';
import type { DiffRuleRef } from './types.js';

/** Options of the diff: the lists and scheme both sides are checked with, and the phase when the bodies name none. */
export interface DiffOptions {
  lists?: ExpressionOptions['lists'];
  serviceToken?: string;
  scheme?: ExpressionOptions['scheme'];
  phase?: string;
}

/** A rule that decides the packets of its cubes that no earlier deciding rule matches. */
export interface DecidingRule {
  ref: DiffRuleRef;
  verdict: string;
  cubes: Cube[];
}

/** A ruleset's deciding rules, in order, and what its expressions were checked with. */
export interface Deciders {
  rules: DecidingRule[];
  /** Enabled rules left out because their expression has errors (the simulator leaves them out too), with the first error. */
  leftOut: { index: number; error: string }[];
  /** The phase (the body's, else the option's). */
  phase?: string;
  http: boolean;
  scheme: Scheme;
  /** The options the simulator is given for this side (the same lists and scheme). */
  simulation: { lists?: ListCatalog; serviceToken?: string; scheme: Scheme };
}

/** The cubes of an opaque part that is true. */
const opaque = (text: string): Cube[] => [new Map<string, Domain>([['#' + text, { kind: 'ordered', values: [[1n, 1n]], universe: [[0n, 1n]], missing: false }]])];

/** The lists of the options as one catalog (built once for both sides). */
export function listCatalog(options: DiffOptions): ListCatalog | undefined {
  return options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
}

/** The phase a body names, else the option's. */
export function phaseOf(ruleset: { phase?: unknown }, options: DiffOptions): string | undefined {
  return typeof ruleset?.phase === 'string' ? ruleset.phase : options.phase;
}

/**
 * The cubes of rules already read, by phase, expression text and the settings that narrow them: given
 * to both sides of a diff, a rule that the change leaves alone gets the very same cubes array on both,
 * so the diff tells it is the same set of packets by identity (regions.ts) and reads its text once.
 */
export type RuleCubeCache = Map<string, Cube[]>;

/**
 * The deciding rules of a ruleset body (`{rules, phase?}`); other members are ignored. `cubes: false`
 * leaves each rule's cubes empty (a side that is only simulated).
 */
export function decidersOf(ruleset: { rules?: unknown; phase?: unknown }, options: DiffOptions, lists: ListCatalog | undefined, cache: RuleCubeCache = new Map(), withCubes = true): Deciders {
  const phase = phaseOf(ruleset, options);
  const http = phase !== undefined && phaseInfo(phase)?.fields === 'http';
  const given = options.scheme === undefined ? NETWORK_SCHEME : options.scheme instanceof Scheme ? options.scheme : Scheme.fromLiteral(options.scheme).scheme;
  const exprOptions: ExpressionOptions = phaseExpressionOptions(phase, { lists, serviceToken: options.serviceToken, scheme: given });
  const scheme = exprOptions.scheme as Scheme;
  const normalizer = new Normalizer(scheme, true, (name) => lists?.get(name) !== undefined);
  const rules: DecidingRule[] = [];
  const leftOut: Deciders['leftOut'] = [];
  const list = Array.isArray(ruleset?.rules) ? (ruleset.rules as unknown[]) : [];
  list.forEach((raw, index) => {
    if (raw === null || typeof raw !== 'object') return;
    const rule = raw as Record<string, unknown>;
    if (rule['enabled'] === false) return;
    const action = rule['action'];
    if (typeof action !== 'string' || (http ? !Object.hasOwn(ACTION_CATALOG, action) : action !== 'skip' && action !== 'block')) return;
    if (!actionTerminates(action, rule['action_parameters'])) return;
    const text = typeof rule['expression'] === 'string' ? rule['expression'] : '';
    const key = `${phase}\u0000${text}\u0000${JSON.stringify(rule['ratelimit'])}\u0000${JSON.stringify(rule['exposed_credential_check'])}`;
    let cubes = cache.get(key);
    if (!cubes) {
      if (http && text.trim() === 'true') cubes = [new Map()];
      else {
        const result = checkedExpression(text, exprOptions);
        const checked = result.checked;
        const error = result.diagnostics.find((d) => d.severity === 'error');
        if (!checked || error) return void leftOut.push({ index, error: error?.message ?? 'not checked' });
        if (!withCubes) cubes = [];
        else {
          try {
            cubes = normalizer.cubes(checked);
          } catch (e) {
            if (!(e instanceof TooComplex)) throw e;
            cubes = opaque(print(checked.ast));
          }
        }
      }
      // A rate limiting rule acts past its rate, a credentials check on leaked credentials: on part of what
      // it matches, which no field tells. Keyed by the settings and the expression: the same rule on both
      // sides is the same unknown, a changed rate another one.
      if (withCubes && rule['ratelimit'] !== undefined) cubes = product(cubes, opaque(`the rate limit ${JSON.stringify(rule['ratelimit'])} of \`${text}\` is exceeded`));
      if (withCubes && rule['exposed_credential_check'] !== undefined) cubes = product(cubes, opaque(`the credentials ${JSON.stringify(rule['exposed_credential_check'])} of \`${text}\` are leaked`));
      cache.set(key, cubes);
    }
    const ref: DiffRuleRef = { index, action, expression: text };
    for (const k of ['id', 'ref', 'description'] as const) if (typeof rule[k] === 'string') ref[k] = rule[k];
    rules.push({ ref, verdict: action === 'skip' ? 'allow' : action, cubes });
  });
  return { rules, leftOut, phase, http, scheme, simulation: { lists, serviceToken: options.serviceToken, scheme } };
}

/**
 * The ruleset compiled for the simulator, with the phase, lists and scheme its deciders were read with,
 * and `extra` options (regions.ts decides its few witnesses on closures, without generated code).
 */
export function compileDeciders(ruleset: { rules?: unknown }, side: Deciders, extra: SimulationOptions = {}): CompiledRuleset {
  const rules = Array.isArray(ruleset?.rules) ? ruleset.rules : [];
  return compileRuleset({ ...(ruleset as object), ...(side.phase !== undefined ? { phase: side.phase } : {}), rules: rules as Rule[] }, { ...side.simulation, ...extra });
}
