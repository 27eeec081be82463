/**
 * What the service assigns when it stores a body: ids, refs, versions, timestamps and defaults of rulesets,
 * rules and Logpush jobs. Plain functions of (stored record, validated body, clock, id source), so the
 * routes and the tests share them and the store only persists what they return.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Diagnostic } from '../diagnostics/index.js';
import type { StoredJob, StoredRule, StoredRuleset } from './store/index.js';
import { serverDiagnostic } from './envelope.js';

/**
 * Random bytes drawn in bulk: one `randomBytes` call costs ~5 µs whatever its size (a call into the
 * CSPRNG), and a PUT of 50 new rules draws 50 ids, so ids are cut from a pool of 256 (the bench's
 * profile of a PUT showed a third of its time in single `randomBytes(16)` calls).
 */
const ID_BYTES = 16;
const POOL_IDS = 256;
let pool = Buffer.alloc(0);
let poolAt = 0;

/** A new id: 32 lower-case hex digits (128 random bits), like the service's. */
export function newId(): string {
  if (poolAt >= pool.length) {
    pool = randomBytes(ID_BYTES * POOL_IDS);
    poolAt = 0;
  }
  const id = pool.toString('hex', poolAt, poolAt + ID_BYTES);
  poolAt += ID_BYTES;
  return id;
}

/** The timestamp format of responses: ISO 8601, UTC, fractional seconds. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString();
}

type Body = Record<string, unknown>;

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/** The members that make a rule what it is; a PUT that leaves them alone keeps the rule's version. */
function sameRule(a: StoredRule, b: Omit<StoredRule, 'id' | 'version' | 'last_updated'>): boolean {
  return a.action === b.action && a.expression === b.expression && a.description === b.description && a.enabled === b.enabled && a.ref === b.ref &&
    JSON.stringify(a.action_parameters ?? null) === JSON.stringify(b.action_parameters ?? null);
}

function ruleContent(r: Body, id: string, ref: string | undefined): Omit<StoredRule, 'id' | 'version' | 'last_updated'> {
  const out: Omit<StoredRule, 'id' | 'version' | 'last_updated'> = {
    action: str(r['action']),
    expression: str(r['expression']),
    description: str(r['description']),
    ref: str(r['ref'], ref ?? id),
    enabled: typeof r['enabled'] === 'boolean' ? r['enabled'] : true,
  };
  if (r['action_parameters'] !== undefined) out.action_parameters = r['action_parameters'] as Record<string, unknown>;
  return out;
}

function withMeta(content: Omit<StoredRule, 'id' | 'version' | 'last_updated'>, id: string, version: string, lastUpdated: string): StoredRule {
  // Key order of the service's responses: id, version, action, … (JSON keeps insertion order).
  const { action, action_parameters, expression, description, ref, enabled } = content;
  const rule: StoredRule = { id, version, action, expression, description, last_updated: lastUpdated, ref, enabled };
  if (action_parameters !== undefined) rule.action_parameters = action_parameters;
  return rule;
}

/** The ruleset a valid create body makes. */
export function newRuleset(body: Body, now: string, id: () => string = newId): StoredRuleset {
  const rules = Array.isArray(body['rules']) ? (body['rules'] as Body[]) : [];
  return {
    id: id(),
    name: str(body['name']),
    description: str(body['description']),
    kind: str(body['kind']),
    phase: str(body['phase']),
    version: '1',
    last_updated: now,
    rules: rules.map((r) => {
      const rid = id();
      return withMeta(ruleContent(r, rid, undefined), rid, '1', now);
    }),
  };
}

/**
 * The ruleset a valid PUT body makes of the stored one: all rules replaced, the version one up. A rule
 * that names a stored rule by `id` (or, without an id, by `ref`) keeps its id; when its content is
 * unchanged it also keeps its version and timestamp. Refused: an unknown or repeated id, a changed kind
 * or phase.
 */
export function replaceRules(current: StoredRuleset, body: Body, now: string, id: () => string = newId): { next: StoredRuleset } | { refused: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  for (const m of ['kind', 'phase'] as const) {
    if (typeof body[m] === 'string' && body[m] !== current[m]) {
      problems.push(serverDiagnostic('server-immutable-member', `"${m}" is fixed when a ruleset is created: this one is ${JSON.stringify(current[m])}, not ${JSON.stringify(body[m])}; create a new ruleset for another ${m}`, `/${m}`));
    }
  }
  const version = String(Number(current.version) + 1);
  const byId = new Map(current.rules.map((r) => [r.id, r]));
  const byRef = new Map(current.rules.map((r) => [r.ref, r]));
  const seen = new Set<string>();
  const rules: StoredRule[] = [];
  const bodyRules = Array.isArray(body['rules']) ? (body['rules'] as Body[]) : [];
  bodyRules.forEach((r, i) => {
    let old: StoredRule | undefined;
    if (typeof r['id'] === 'string') {
      old = byId.get(r['id']);
      if (!old) {
        problems.push(serverDiagnostic('server-unknown-rule-id', `this ruleset has no rule with id ${JSON.stringify(r['id'])}; leave "id" out to add a new rule`, `/rules/${i}/id`));
        return;
      }
    } else if (typeof r['ref'] === 'string') {
      old = byRef.get(r['ref']);
    }
    if (old) {
      if (seen.has(old.id)) {
        problems.push(serverDiagnostic('server-duplicate-rule-id', `rule ${old.id} appears twice in this PUT`, `/rules/${i}/id`));
        return;
      }
      seen.add(old.id);
      const content = ruleContent(r, old.id, old.ref);
      rules.push(sameRule(old, content) ? withMeta(content, old.id, old.version, old.last_updated) : withMeta(content, old.id, version, now));
    } else {
      const rid = id();
      rules.push(withMeta(ruleContent(r, rid, undefined), rid, version, now));
    }
  });
  if (problems.length) return { refused: problems };
  return {
    next: {
      id: current.id,
      name: typeof body['name'] === 'string' ? body['name'] : current.name,
      description: typeof body['description'] === 'string' ? body['description'] : current.description,
      kind: current.kind,
      phase: current.phase,
      version,
      last_updated: now,
      rules,
    },
  };
}

/** A ruleset as the list answers it: without its rules. */
export function rulesetSummary(r: StoredRuleset): Omit<StoredRuleset, 'rules'> {
  const { rules: _rules, ...rest } = r;
  return rest;
}

const JOB_DEFAULTS: Omit<StoredJob, 'id'> = {
  name: null, dataset: null, destination_conf: '', logpull_options: null, filter: null, enabled: false, frequency: 'high', kind: '',
  max_upload_bytes: null, max_upload_interval_seconds: null, max_upload_records: null, output_options: null,
  error_message: null, last_complete: null, last_error: null,
};

/** Members of a job body the store keeps (the ownership challenge is checked, not kept). */
const JOB_WRITABLE = ['name', 'dataset', 'destination_conf', 'logpull_options', 'filter', 'enabled', 'frequency', 'kind', 'max_upload_bytes', 'max_upload_interval_seconds', 'max_upload_records', 'output_options'] as const;

function applyJob(base: Omit<StoredJob, 'id'>, body: Body): Omit<StoredJob, 'id'> {
  const out = { ...base } as Record<string, unknown>;
  for (const k of JOB_WRITABLE) if (Object.prototype.hasOwnProperty.call(body, k) && body[k] !== undefined) out[k] = body[k];
  return out as Omit<StoredJob, 'id'>;
}

/** The job a valid create body makes (without its id, which the store assigns). */
export function newJob(body: Body): Omit<StoredJob, 'id'> {
  return applyJob(JOB_DEFAULTS, body);
}

/** The job a valid update body makes of the stored one: members given replace, the rest stay. */
export function updateJob(current: StoredJob, body: Body): StoredJob {
  const { id, ...rest } = current;
  // The dataset is fixed when a job is created.
  const { dataset: _dataset, ...changes } = body;
  return { id, ...applyJob(rest, changes) };
}
