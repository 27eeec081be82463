/**
 * Validate a Logpush job body (docs/logpush.md): every problem is a diagnostic with a
 * JSON pointer into the body; when the body is given as JSON text, structural diagnostics carry ranges
 * into it, and diagnostics about a string member's content carry ranges inside that string
 * (`rangeIn: 'value'`).
 * @module
 */
import type { Diagnostic, Range } from '../diagnostics/index.js';
import { DATASETS_BY_SCOPE, DATASET_NAMES, DATASET_SCOPES, getDataset, type Dataset, type DatasetScope } from './datasets/index.js';
import { DATE_PLACEHOLDER, DESTINATION_BY_SCHEME, DESTINATION_SCHEMES, S3_REGION, parseDestination } from './destinations.js';
import { checkLogFilter } from './filter-check.js';
import { checkLogpullOptions, MAX_FIELD_DIAGNOSTICS, parseLogpullOptions } from './logpull-options.js';
import { customFieldNames } from './custom-fields.js';
import { parseJsonText, type JsonDoc } from '../json/index.js';
import { describe, diag, hasOwn, isObject } from './diag.js';
import { suggest } from '../diagnostics/index.js';

/** Context of {@link validateLogpushJob}. */
export interface LogpushJobContext {
  /** `create` (default): required members and the s3 ownership challenge are checked; `update`: not. */
  operation?: 'create' | 'update';
  /** Dataset of the existing job, used when an update body has no `dataset`. */
  dataset?: string;
  /**
   * The endpoint's scope: `zone` for `/zones/{zone_id}/logpush/jobs`, `account` for
   * `/accounts/{account_id}/logpush/jobs`. When given, a dataset of the other scope is an error
   * (`job-dataset-scope`), and a name both scopes offer is checked against this scope's fields.
   */
  scope?: DatasetScope;
  /**
   * The zone's `log_custom_field` rule(s), when known: naming `RequestHeaders`, `ResponseHeaders` or
   * `Cookies` in `fields` while the zone configures none of that kind is reported.
   */
  customFieldRules?: readonly unknown[];
}

/** Members of the body the spec describes. */
export const JOB_MEMBERS = ['name', 'destination_conf', 'dataset', 'logpull_options', 'ownership_challenge', 'filter'] as const;

/**
 * Further members of the public API's job body. Those a client sets are checked as the API schema types
 * them ({@link JOB_SETTINGS}, `output_options`); the ones the service fills (`id`, `error_message`,
 * `last_complete`, `last_error`) are accepted as a read job gives them back, and ignored.
 */
export const JOB_OTHER_MEMBERS = [
  'enabled', 'frequency', 'kind', 'max_upload_bytes', 'max_upload_interval_seconds', 'max_upload_records',
  'output_options', 'filter_attack_traffic', 'id', 'error_message', 'last_complete', 'last_error',
] as const;

/** How the API schema types a job setting: a boolean, one of some values, or an integer range (0 turns it off). */
export type JobSetting =
  | { kind: 'boolean'; nullable?: boolean }
  | { kind: 'enum'; values: readonly string[]; nullable?: boolean }
  | { kind: 'range'; min: number; max: number; zero: boolean; unit: string };

/** The job settings of the API schema (cloudflare `LogpushJob`), one row each, read by the validator and the docs. */
export const JOB_SETTINGS: Readonly<Record<string, JobSetting>> = {
  enabled: { kind: 'boolean' },
  filter_attack_traffic: { kind: 'boolean' },
  frequency: { kind: 'enum', values: ['high', 'low'], nullable: true },
  kind: { kind: 'enum', values: ['', 'edge'] },
  max_upload_bytes: { kind: 'range', min: 5_000_000, max: 1_000_000_000, zero: true, unit: 'bytes' },
  max_upload_interval_seconds: { kind: 'range', min: 30, max: 300, zero: true, unit: 'seconds' },
  max_upload_records: { kind: 'range', min: 1000, max: 1_000_000, zero: true, unit: 'lines' },
};

/** `output_options.timestamp_format` (the API schema's enum: two more than `timestamps=` takes). */
export const OUTPUT_TIMESTAMP_FORMATS = ['unixnano', 'unix', 'rfc3339', 'rfc3339ms', 'rfc3339ns'] as const;

/** The members of `output_options` and their types in the API schema (strings and booleans may be null). */
export const OUTPUT_OPTIONS_MEMBERS: Readonly<Record<string, 'string' | 'boolean' | 'special'>> = {
  batch_prefix: 'string', batch_suffix: 'string', field_delimiter: 'string', record_delimiter: 'string',
  record_prefix: 'string', record_suffix: 'string', record_template: 'string',
  'CVE-2021-44228': 'boolean', merge_subrequests: 'boolean',
  field_names: 'special', output_type: 'special', sample_rate: 'special', timestamp_format: 'special',
};

/** Job names: letters, digits, `-` and `.` (public API schema). */
export const JOB_NAME_PATTERN = /^[a-zA-Z0-9.-]*$/;
/** The longest job name, in characters (public API schema). */
export const JOB_NAME_MAX = 512;

class JobValidator {
  readonly out: Diagnostic[] = [];
  constructor(private readonly doc: JsonDoc | undefined) {}

  /** Where a whole member is: the pointer, plus a document range when the body was text. */
  at(pointer: string, part: 'value' | 'key' | 'member' = 'value'): { pointer: string; range?: Range } {
    const range = !this.doc ? undefined : part === 'key' ? this.doc.keyRange(pointer) : part === 'member' ? this.doc.memberRange(pointer) : this.doc.valueRange(pointer);
    return range ? { pointer, range } : { pointer };
  }

  validate(body: unknown, ctx: LogpushJobContext): void {
    for (const d of this.doc?.duplicates ?? []) {
      this.out.push(diag('job-duplicate-member', `${describe(d.key)} appears twice in the same object; only the last one counts`, { pointer: d.pointer, range: d.range }));
    }
    if (!isObject(body)) {
      this.out.push(diag('job-not-object', `A job body is a JSON object, not ${describe(body)}`, this.at('')));
      return;
    }
    const create = (ctx.operation ?? 'create') === 'create';
    const known = [...JOB_MEMBERS, ...JOB_OTHER_MEMBERS] as string[];
    for (const k of Object.keys(body)) {
      if (known.includes(k)) continue;
      const s = suggest(k, known);
      this.out.push(diag('job-unknown-member', `The job body has no member ${describe(k)}${s ? `; did you mean "${s}"?` : ''}`, { ...this.at(`/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, 'key'), data: { member: k, suggestion: s } }));
    }
    // A member set to undefined (possible for objects, not for JSON text) counts as absent.
    const present = (k: string) => hasOwn(body, k) && body[k] !== undefined;
    for (const k of JOB_MEMBERS) {
      if (present(k) && typeof body[k] !== 'string' && !(k === 'filter' && body[k] === null)) {
        this.out.push(diag('job-member-type', `"${k}" must be a string, not ${describe(body[k])}`, this.at(`/${k}`)));
      }
    }
    const str = (k: string): string | undefined => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
    if (create) {
      for (const k of ['destination_conf', 'dataset'] as const) {
        if (!present(k)) this.out.push(diag('job-missing-member', `The job body needs "${k}" to create a job`, { ...this.at(''), data: { member: k } }));
      }
    }
    const name = str('name');
    if (name !== undefined && (!JOB_NAME_PATTERN.test(name) || name.length > JOB_NAME_MAX)) {
      const bad = /[^a-zA-Z0-9.-]/.exec(name);
      this.out.push(diag('job-invalid-name', name.length > JOB_NAME_MAX
        ? `The job name is ${name.length} characters; the limit is ${JOB_NAME_MAX}`
        : `The job name has ${JSON.stringify(bad?.[0])} at index ${bad?.index}; names hold letters, digits, "-" and "." only`, {
        pointer: '/name', range: bad ? { start: bad.index, end: bad.index + bad[0].length } : { start: JOB_NAME_MAX, end: name.length }, rangeIn: 'value',
      }));
    }
    // dataset
    let dataset: Dataset | undefined;
    const dsName = str('dataset') ?? (present('dataset') ? undefined : ctx.dataset);
    const scope = ctx.scope === 'zone' || ctx.scope === 'account' ? ctx.scope : undefined;
    if (dsName !== undefined) {
      dataset = getDataset(dsName, scope) ?? getDataset(dsName);
      const scopes = DATASET_SCOPES.get(dsName);
      // Suggest from the job's scope first: a zone job's "gateway_dsn" is not meant as an account dataset.
      const pool = scope ? [...DATASETS_BY_SCOPE[scope].keys()] : DATASET_NAMES;
      const fixTo = (s: string) => (this.doc?.valueRange('/dataset') ? { title: `replace with "${s}"`, edits: [{ range: this.doc.valueRange('/dataset')!, newText: JSON.stringify(s) }] } : undefined);
      if (!dataset) {
        const s = suggest(dsName, pool) ?? suggest(dsName, DATASET_NAMES);
        const known = (['zone', 'account'] as const).map((x) => `${x}: ${[...DATASETS_BY_SCOPE[x].keys()].join(', ')}`).join('; ');
        this.out.push(diag('job-unknown-dataset', `Unknown dataset ${describe(dsName)}.${s ? ` Did you mean "${s}"?` : ''} The catalogued datasets are ${known}`, {
          ...this.at('/dataset'), data: { dataset: dsName, suggestion: s },
          fix: s ? fixTo(s) : undefined,
        }));
      } else if (scope && scopes && !scopes.includes(scope)) {
        const other = scopes[0]!;
        const s = suggest(dsName, pool);
        this.out.push(diag('job-dataset-scope', `${dsName} is ${other === 'account' ? 'an account' : 'a zone'}-scoped dataset: create its job at /${other === 'account' ? 'accounts/{account_id}' : 'zones/{zone_id}'}/logpush/jobs, not in this ${scope}${s ? `. The ${scope} dataset nearest by name is "${s}"` : ''}`, {
          ...this.at('/dataset'), data: { dataset: dsName, scope, datasetScopes: [...scopes], suggestion: s },
        }));
      }
    }
    // destination
    const dest = str('destination_conf');
    let isS3 = false;
    if (dest !== undefined) isS3 = this.destination(dest);
    if (create && isS3 && (!present('ownership_challenge') || body['ownership_challenge'] === '')) {
      this.out.push(diag('ownership-challenge-missing', 'Creating a job with an s3:// destination needs "ownership_challenge": the token the service wrote to the bucket', this.at('')));
    }
    for (const [k, setting] of Object.entries(JOB_SETTINGS)) if (present(k)) this.setting(k, body[k], setting);
    const lo = str('logpull_options');
    if (lo !== undefined) this.out.push(...checkLogpullOptions(lo, dataset));
    if (lo !== undefined && Array.isArray(ctx.customFieldRules) && dataset?.name === 'http_requests') this.customObjects(lo, ctx.customFieldRules);
    if (present('output_options') && body['output_options'] !== null) this.outputOptions(body['output_options'], dataset);
    const filter = str('filter');
    if (filter !== undefined && filter.trim() !== '') {
      const checked = checkLogFilter(filter, { dataset: dataset?.name ?? '', scope: dataset?.scope });
      for (const d of checked.diagnostics) {
        if (d.code === 'filter-unknown-dataset') continue;
        const r: Diagnostic = { ...d, pointer: '/filter', data: { ...(d.data ?? {}), filterPointer: d.pointer ?? '' } };
        if (d.range) r.rangeIn = 'value';
        else delete r.rangeIn;
        this.out.push(r);
      }
    }
  }

  /** A job setting against its row of {@link JOB_SETTINGS}. */
  private setting(k: string, v: unknown, setting: JobSetting): void {
    const at = this.at(`/${k}`);
    if (setting.kind === 'boolean') {
      if (typeof v !== 'boolean' && !(v === null && setting.nullable)) this.out.push(diag('job-member-type', `"${k}" is true or false, not ${describe(v)}`, at));
    } else if (setting.kind === 'enum') {
      if (!(typeof v === 'string' && setting.values.includes(v)) && !(v === null && setting.nullable)) {
        this.out.push(diag('job-member-type', `"${k}" is one of ${setting.values.map((x) => JSON.stringify(x)).join(', ')}${setting.nullable ? ' or null' : ''}, not ${describe(v)}`, at));
      }
    } else if (v !== null) {
      const span = `${setting.min.toLocaleString('en-US')} to ${setting.max.toLocaleString('en-US')} ${setting.unit}${setting.zero ? ', or 0 to turn the limit off' : ''}`;
      if (typeof v !== 'number' || !Number.isInteger(v)) this.out.push(diag('job-member-type', `"${k}" is an integer (${span}), not ${describe(v)}`, at));
      else if (!(v === 0 && setting.zero) && (v < setting.min || v > setting.max)) {
        this.out.push(diag('job-member-range', `"${k}" is ${v}; it takes ${span}`, { ...at, data: { member: k, min: setting.min, max: setting.max } }));
      }
    }
  }

  /** Custom field objects named in fields= that the zone's rules leave empty. */
  private customObjects(lo: string, rules: readonly unknown[]): void {
    const fields = parseLogpullOptions(lo).find((o) => o.name === 'fields');
    if (!fields) return;
    const configured = { RequestHeaders: 0, ResponseHeaders: 0, Cookies: 0 };
    for (const r of rules) {
      const n = customFieldNames(r);
      configured.RequestHeaders += n.request_fields.length;
      configured.ResponseHeaders += n.response_fields.length;
      configured.Cookies += n.cookie_fields.length;
    }
    const arrays = { RequestHeaders: 'request_fields', ResponseHeaders: 'response_fields', Cookies: 'cookie_fields' } as const;
    let off = fields.valueRange.start;
    for (const name of fields.value.split(',')) {
      const range = { start: off, end: off + name.length };
      off += name.length + 1;
      if (name in configured && configured[name as keyof typeof configured] === 0) {
        this.out.push(diag('logpull-custom-fields-unconfigured', `${name} is in fields, but the zone's custom field rule has no ${arrays[name as keyof typeof arrays]}: the object will be empty`, { pointer: '/logpull_options', range, rangeIn: 'value' }));
      }
    }
  }

  /** The newer `output_options` object: field_names, timestamp_format, sample_rate, CVE-2021-44228. */
  private outputOptions(o: unknown, dataset: Dataset | undefined): void {
    if (!isObject(o)) {
      this.out.push(diag('job-member-type', `"output_options" must be an object, not ${describe(o)}`, this.at('/output_options')));
      return;
    }
    const names = o['field_names'];
    if (names !== undefined) {
      if (!Array.isArray(names)) {
        this.out.push(diag('job-member-type', `"output_options.field_names" must be an array of field names, not ${describe(names)}`, this.at('/output_options/field_names')));
      } else {
        const seen = new Set<string>();
        let listed = 0;
        let more = 0;
        names.forEach((n, i) => {
          const p = `/output_options/field_names/${i}`;
          const repeated = typeof n === 'string' && seen.has(n);
          const bad = typeof n !== 'string' || repeated || (dataset !== undefined && !dataset.byName.has(n));
          if (typeof n === 'string') seen.add(n);
          if (!bad) return;
          if (listed >= MAX_FIELD_DIAGNOSTICS) {
            more++;
            return;
          }
          listed++;
          if (typeof n !== 'string') {
            this.out.push(diag('job-member-type', `field_names[${i}] must be a string, not ${describe(n)}`, this.at(p)));
          } else if (repeated) {
            this.out.push(diag('logpull-duplicate-field', `${n} is listed twice in field_names`, this.at(p)));
          } else if (dataset && !dataset.byName.has(n)) {
            const sug = suggest(n, dataset.byName.keys());
            this.out.push(diag('logpull-unknown-field', `${JSON.stringify(n)} is not a field of ${dataset.name}${sug ? `; did you mean "${sug}"?` : ''}`, { ...this.at(p), data: { field: n, dataset: dataset.name, suggestion: sug } }));
          }
        });
        if (more) {
          this.out.push(diag('logpull-unknown-field', `and ${more} more field name(s) that are not strings, repeated or not fields of ${dataset?.name ?? 'the dataset'} (not listed one by one)`, { ...this.at('/output_options/field_names'), data: { more } }));
        }
      }
    }
    const ts = o['timestamp_format'];
    if (ts !== undefined && !(OUTPUT_TIMESTAMP_FORMATS as readonly unknown[]).includes(ts)) {
      this.out.push(diag('logpull-invalid-timestamps', `timestamp_format ${describe(ts)} is not a format; use ${OUTPUT_TIMESTAMP_FORMATS.join(', ')}`, this.at('/output_options/timestamp_format')));
    }
    const type = o['output_type'];
    if (type !== undefined && type !== 'ndjson' && type !== 'csv') {
      this.out.push(diag('job-member-type', `"output_options.output_type" is "ndjson" or "csv", not ${describe(type)}`, this.at('/output_options/output_type')));
    }
    for (const [k, t] of Object.entries(OUTPUT_OPTIONS_MEMBERS)) {
      const v = o[k];
      if (t === 'special' || k === 'CVE-2021-44228' || v === undefined || v === null || typeof v === t) continue;
      this.out.push(diag('job-member-type', `"output_options.${k}" is a ${t} or null, not ${describe(v)}`, this.at(`/output_options/${k}`)));
    }
    for (const k of Object.keys(o)) {
      if (hasOwn(OUTPUT_OPTIONS_MEMBERS, k)) continue;
      const s = suggest(k, Object.keys(OUTPUT_OPTIONS_MEMBERS));
      this.out.push(diag('job-unknown-member', `output_options has no member ${describe(k)}${s ? `; did you mean "${s}"?` : ''}`, { ...this.at(`/output_options/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, 'key'), data: { member: k, suggestion: s } }));
    }
    const rate = o['sample_rate'];
    if (rate !== undefined && rate !== null && !(typeof rate === 'number' && rate > 0 && rate <= 1)) {
      this.out.push(diag('logpull-invalid-sample', `sample_rate ${describe(rate)} is not a number in (0, 1]`, this.at('/output_options/sample_rate')));
    }
    const cve = o['CVE-2021-44228'];
    if (cve !== undefined && cve !== null && typeof cve !== 'boolean') {
      this.out.push(diag('logpull-invalid-cve', `"CVE-2021-44228" in output_options is true or false, not ${describe(cve)}`, this.at('/output_options/CVE-2021-44228')));
    }
  }

  /** Check destination_conf; returns true for an s3 destination. */
  private destination(s: string): boolean {
    const at = (range: Range) => ({ pointer: '/destination_conf', range, rangeIn: 'value' as const });
    const p = parseDestination(s);
    if (!p) {
      this.out.push(diag('destination-invalid', `destination_conf ${JSON.stringify(s.slice(0, 60))} is not <scheme>://<target>; e.g. ${DESTINATION_SCHEMES[0]!.form}`, at({ start: 0, end: s.length })));
      return false;
    }
    const scheme = DESTINATION_BY_SCHEME.get(p.scheme.toLowerCase());
    if (!scheme) {
      const sug = suggest(p.scheme, DESTINATION_SCHEMES.map((d) => d.scheme));
      this.out.push(diag('destination-unknown-scheme', `Unknown destination scheme "${p.scheme}"; known: ${DESTINATION_SCHEMES.map((d) => d.scheme).join(', ')}${sug ? `. Did you mean "${sug}"?` : ''}`, {
        ...at(p.schemeRange), fix: sug ? { title: `replace with "${sug}"`, edits: [{ range: p.schemeRange, newText: sug }] } : undefined,
      }));
      return false;
    }
    if (p.target.length === 0) {
      this.out.push(diag('destination-missing-target', `The ${scheme.scheme} destination names no ${scheme.target}; the form is ${scheme.form}`, at(p.targetRange)));
    }
    const names = new Map(p.params.map((x) => [x.name, x]));
    for (const req of scheme.required) {
      if (!names.has(req)) {
        this.out.push(diag('destination-missing-param', `A ${scheme.scheme}:// destination needs the "${req}" parameter; the form is ${scheme.form}`, { ...at({ start: p.pathRange.end, end: s.length }), data: { scheme: scheme.scheme, param: req } }));
      }
    }
    for (const x of p.params) {
      if (x.value === '' && scheme.required.includes(x.name)) {
        this.out.push(diag('destination-invalid-param', `The "${x.name}" parameter of the destination is empty`, at(x.range)));
      }
    }
    const region = names.get('region');
    if (scheme.scheme === 's3' && region && region.value !== '' && !S3_REGION.test(region.value)) {
      this.out.push(diag('destination-invalid-param', `region=${region.value} does not look like an AWS region (e.g. us-west-2)`, at(region.range)));
    }
    // Date placeholders: only {DATE} is replaced.
    const re = /\{[^{}/?&]*\}/g;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      if (m[0] === DATE_PLACEHOLDER) continue;
      if (/date|yyyy|yy|mm|dd|day|time/i.test(m[0])) {
        this.out.push(diag('destination-date-placeholder', `${m[0]} is not replaced by the service; the date placeholder is ${DATE_PLACEHOLDER}`, {
          ...at({ start: m.index, end: m.index + m[0].length }),
          fix: { title: `replace with ${DATE_PLACEHOLDER}`, edits: [{ range: { start: m.index, end: m.index + m[0].length }, newText: DATE_PLACEHOLDER }] },
        }));
      }
    }
    return scheme.scheme === 's3';
  }
}

/**
 * Validate a Logpush job body (an object, or its JSON text) as the spec describes: name,
 * destination_conf (scheme, required parameters, `{DATE}`), dataset, logpull_options, ownership_challenge
 * (s3 on create) and filter (its diagnostics re-based to pointer `/filter`, range inside the filter
 * string, `rangeIn: 'value'`, the filter-internal pointer in `data.filterPointer`). Never throws.
 */
export function validateLogpushJob(body: unknown, context: LogpushJobContext = {}): Diagnostic[] {
  let doc: JsonDoc | undefined;
  let value = body;
  if (typeof body === 'string') {
    const parsed = parseJsonText(body, 256);
    if (!parsed.doc) {
      return parsed.errors.slice(0, 1).map((e) => diag('job-invalid-json', `The job body is not valid JSON: ${e.message} at offset ${e.range.start}`, { pointer: '', range: e.range }));
    }
    doc = parsed.doc;
    value = doc.value;
  }
  const v = new JobValidator(doc);
  try {
    v.validate(value, context ?? {});
  } catch (e) {
    // Exotic inputs (getters, proxies) must not escape as exceptions.
    v.out.push(diag('job-not-object', `The job body could not be read: ${String(e)}`, { pointer: '' }));
  }
  return v.out;
}
