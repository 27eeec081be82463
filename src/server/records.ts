/**
 * What the service assigns when it stores a body: ids, refs, versions, timestamps and defaults of rulesets,
 * rules and Logpush jobs. Plain functions of (stored record, validated body, clock, id source), so the
 * routes and the tests share them and the store only persists what they return.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { randomId, ruleContent, sameRule, seededIds, storedRule, type StoredJob, type StoredRule, type StoredRuleset } from './store/index.js';
import { serverDiagnostic } from './envelope.js';

/** A new id: 32 lower-case hex digits (128 random bits), like the service's. */
export function newId(): string {
  return randomId();
}

/**
 * The ids of a record's new rules by their index: with {@link newId} as the id source, the ids one seed
 * gives (see `seededId`: one draw of the CSPRNG per record, and the record's history row names them by
 * the seed); another source's ids are drawn one by one.
 */
function newRuleIds(count: number, source: () => string): (i: number) => string {
  if (source !== newId) return () => source();
  const ids = seededIds(newId(), count);
  return (i) => ids[i]!;
}

/** The timestamp format of responses: ISO 8601, UTC, fractional seconds. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString();
}

type Body = Readonly<Record<string, unknown>>;

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

const bodyRules = (body: Body): Body[] => (Array.isArray(body['rules']) ? (body['rules'] as Body[]) : []);

/** The ruleset a valid create body makes. */
export function newRuleset(body: Body, now: string, id: () => string = newId): StoredRuleset {
  const rules = bodyRules(body);
  const rulesetId = id();
  const ruleId = newRuleIds(rules.length, id);
  return {
    id: rulesetId,
    name: str(body['name']),
    description: str(body['description']),
    kind: str(body['kind']),
    phase: str(body['phase']),
    version: '1',
    last_updated: now,
    rules: rules.map((r, i) => {
      const content = ruleContent(r);
      const added = ruleId(i);
      return storedRule(content, { id: added, version: '1', last_updated: now, ref: typeof r['ref'] === 'string' ? r['ref'] : added });
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
  // Built on the first body rule that names a stored one (automation that sends rules without ids never needs them).
  let byId: Map<string, StoredRule> | undefined;
  let byRef: Map<string, StoredRule> | undefined;
  const seen = new Set<string>();
  const given = bodyRules(body);
  const ruleId = newRuleIds(given.length, id);
  const rules: StoredRule[] = [];
  given.forEach((r, i) => {
    const content = ruleContent(r);
    const bodyRef = typeof r['ref'] === 'string' ? r['ref'] : undefined;
    let old: StoredRule | undefined;
    if (typeof r['id'] === 'string') {
      old = (byId ??= new Map(current.rules.map((s) => [s.id, s]))).get(r['id']);
      if (!old) {
        problems.push(serverDiagnostic('server-unknown-rule-id', `this ruleset has no rule with id ${JSON.stringify(r['id'])}; leave "id" out to add a new rule`, `/rules/${i}/id`));
        return;
      }
    } else if (bodyRef !== undefined) {
      old = (byRef ??= new Map(current.rules.map((s) => [s.ref, s]))).get(bodyRef);
    }
    if (!old) {
      const added = ruleId(i);
      rules.push(storedRule(content, { id: added, version, last_updated: now, ref: bodyRef ?? added }));
      return;
    }
    if (seen.has(old.id)) {
      problems.push(serverDiagnostic('server-duplicate-rule-id', `rule ${old.id} appears twice in this PUT`, `/rules/${i}/id`));
      return;
    }
    seen.add(old.id);
    const ref = bodyRef ?? old.ref;
    const kept = sameRule(old, content, ref);
    rules.push(storedRule(content, { id: old.id, version: kept ? old.version : version, last_updated: kept ? old.last_updated : now, ref }));
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
  const summary: Record<string, unknown> = {};
  for (const k of Object.keys(r)) if (k !== 'rules') summary[k] = r[k as keyof StoredRuleset];
  return summary as Omit<StoredRuleset, 'rules'>;
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
