/**
 * `action_parameters` against the shape of their action ({@link ACTION_CATALOG}): a member the shape does
 * not have is a warning with the nearest member (the schema may be ahead of rulekit: a new member is not
 * refused here), a value of the wrong JSON type and a missing required member are errors. The problems
 * carry paths, not positions: JSON validation turns them into pointers, Terraform lint into HCL ranges.
 * @module
 */
import { suggest } from '../diagnostics/index.js';
import { ACTION_CATALOG, type JsonType, type Shape } from './catalog.js';

/** One problem of a value against its shape; `path` leads from `action_parameters` to the value. */
export interface ParameterProblem {
  code: 'rule-action-parameters' | 'rule-action-parameter-unknown' | 'rule-skip-target';
  message: string;
  /** From `action_parameters` to the value; with `atRule`, the problem is the rule's (no action_parameters). */
  path: (string | number)[];
  atRule?: boolean;
  /** What to do, when one thing is clear. */
  fix?: string;
  /** The problem is the key of `path`'s last member (unknown members), not its value. */
  key?: boolean;
  data?: Record<string, unknown>;
}

/** Options of {@link actionParameterProblems}. */
export interface ParameterOptions {
  /** Values whose content is not known (a Terraform variable or call): not checked. */
  opaque?: (v: unknown) => boolean;
  /**
   * The rule is of a network phase: skip and block are held to what the packet simulation reads
   * (simulate.ts): skip needs `"ruleset": "current"` and nothing else, block takes no parameters.
   */
  network?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON type of a value, as a shape names it. */
function typeOf(v: unknown): JsonType | 'null' | 'other' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'object') return typeof v as JsonType;
  return 'other';
}

const A: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'an object', array: 'an array' };

function describe(v: unknown): string {
  const t = typeOf(v);
  if (t === 'string') return (v as string).length > 30 ? `a string of ${(v as string).length} characters` : `the string ${JSON.stringify(v)}`;
  if (t === 'integer' || t === 'number' || t === 'boolean') return `${A[t]} (${String(v)})`;
  return t === 'null' ? 'null' : A[t] ?? 'a value';
}

/** `response.status_code`, `headers["x-a"]`, `overrides.rules[0].id`: a path as people write it. */
export function pathText(path: readonly (string | number)[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : /^[a-z_][a-z0-9_]*$/i.test(k) ? (out ? `.${k}` : k) : `[${JSON.stringify(k)}]`;
  return out;
}

/**
 * The problems of a rule's `action_parameters` (undefined when absent) for an action of the catalog. An
 * action not in the catalog has none here (the action itself is reported).
 */
export function actionParameterProblems(action: string, params: unknown, options: ParameterOptions = {}): ParameterProblem[] {
  if (!Object.hasOwn(ACTION_CATALOG, action) || options.opaque?.(params)) return [];
  if (options.network && (action === 'skip' || action === 'block')) return networkProblems(action, params, options);
  const shape: Shape = ACTION_CATALOG[action as keyof typeof ACTION_CATALOG].parameters;
  const out: ParameterProblem[] = [];
  if (params === undefined) {
    const required = shape.required ?? [];
    if (!required.length && shape.minMembers) {
      const names = Object.keys(shape.members ?? {});
      out.push({ code: 'rule-action-parameters', message: `${action} needs action_parameters with at least one of ${names.join(', ')}`, path: [], atRule: true, data: { action, members: names } });
    } else if (required.length) {
      out.push({
        code: 'rule-action-parameters',
        message: `${action} needs action_parameters with ${required.map((m) => `"${m}"`).join(', ')}`,
        path: [],
        atRule: true,
        data: { action, members: [...required] },
      });
    }
    return out;
  }
  check(action, shape, params, [], out, options);
  return out;
}

/** Skip and block of a network phase, as the simulation reads them (their messages predate the catalog). */
function networkProblems(action: 'skip' | 'block', params: unknown, options: ParameterOptions): ParameterProblem[] {
  if (action === 'block') {
    return params !== undefined && !(isObject(params) && Object.keys(params).length === 0) ? [{ code: 'rule-action-parameters', message: 'block takes no action_parameters', path: [] }] : [];
  }
  if (params === undefined) {
    return [{ code: 'rule-action-parameters', message: 'skip needs action_parameters {"ruleset": "current"}', path: [], atRule: true, fix: 'add "action_parameters": {"ruleset": "current"}' }];
  }
  if (!isObject(params)) return []; // the rule member's type is reported as such
  const out: ParameterProblem[] = [];
  for (const key of Object.keys(params)) {
    if (key !== 'ruleset') {
      const guess = suggest(key, ['ruleset']);
      out.push({ code: 'rule-action-parameters', message: `skip's action_parameters have no "${key}"${guess ? '; did you mean "ruleset"?' : ''}`, path: [key], key: true });
    }
  }
  const target = params['ruleset'];
  if (options.opaque?.(target)) return out;
  if (target === undefined) out.push({ code: 'rule-action-parameters', message: 'skip needs "ruleset" in action_parameters ("current" skips the rest of this ruleset)', path: [] });
  else if (typeof target !== 'string') out.push({ code: 'rule-action-parameters', message: `"ruleset" must be a string, not ${describeValue(target)}`, path: ['ruleset'] });
  else if (target !== 'current') out.push({ code: 'rule-skip-target', message: `skip "ruleset": "${target}" — only "current" (skip the remaining rules of this ruleset) is described`, path: ['ruleset'] });
  return out;
}

/** A value in the words of the ruleset validator's messages (`the number 5`). */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : `the string ${JSON.stringify(v)}`;
  if (typeof v === 'object') return 'an object';
  return `the ${typeof v} ${String(v)}`;
}

function check(action: string, shape: Shape, v: unknown, path: (string | number)[], out: ParameterProblem[], options: ParameterOptions): void {
  if (options.opaque?.(v)) return;
  // `block's action_parameters have …`, `"response" of block's action_parameters has …`.
  const root = path.length === 0;
  const where = root ? `${action}'s action_parameters` : `"${pathText(path)}" of ${action}'s action_parameters`;
  const t = typeOf(v);
  // An integer is a number too.
  if (t !== shape.type && !(shape.type === 'number' && t === 'integer')) {
    out.push({ code: 'rule-action-parameters', message: `${where} must be ${A[shape.type]}, not ${describe(v)}`, path, data: { expected: shape.type, actual: t } });
    return;
  }
  if (shape.type === 'array' && shape.items) {
    (v as unknown[]).forEach((item, i) => check(action, shape.items!, item, [...path, i], out, options));
    return;
  }
  if (shape.type !== 'object' || !isObject(v)) return;
  if (shape.values) {
    for (const [k, item] of Object.entries(v)) check(action, shape.values, item, [...path, k], out, options);
    return;
  }
  const members = shape.members;
  if (!members) return; // open: any members
  const names = Object.keys(members);
  for (const [k, item] of Object.entries(v)) {
    if (Object.hasOwn(members, k)) {
      check(action, members[k]!, item, [...path, k], out, options);
      continue;
    }
    const guess = suggest(k, names);
    const has = names.length === 0 ? 'it takes none' : names.length > 8 ? `its members are ${names.slice(0, 8).join(', ')}…` : `its members are ${names.join(', ')}`;
    out.push({
      code: 'rule-action-parameter-unknown',
      message: `${where} ${root ? 'have' : 'has'} no "${k}"${guess ? `; did you mean "${guess}"?` : ` (${has}).`} The API may be ahead of rulekit's schema: a warning, not an error`,
      fix: guess ? `rename "${k}" to "${guess}"` : undefined,
      path: [...path, k],
      key: true,
      data: guess ? { action, member: k, suggestion: guess } : { action, member: k },
    });
  }
  if (shape.minMembers && Object.keys(v).length < shape.minMembers) {
    out.push({ code: 'rule-action-parameters', message: `${where} ${root ? 'are' : 'is'} empty; ${root ? 'they need' : 'it needs'} at least one of ${names.join(', ')}`, path, data: { action, members: names } });
  }
  const missing = (shape.required ?? []).filter((m) => !Object.hasOwn(v, m));
  if (missing.length) {
    const list = missing.map((m) => `"${m}"`);
    const text = list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0]!;
    out.push({ code: 'rule-action-parameters', message: `${where} ${root ? 'need' : 'needs'} ${text}`, path, data: { action, members: missing } });
  }
}
