/**
 * Cloudflare's published OpenAPI document (the part under the reference server's paths, cut into
 * test/fixtures/openapi/cloudflare-api-subset.json) as a checker of the server's answers: the response
 * schema the document gives an operation and status, compiled with Ajv, says whether a body conforms.
 *
 * OpenAPI 3.0 schemas are JSON Schema with extras: `nullable` (Ajv 8 knows it, beside `type`),
 * `discriminator` (ignored: the `oneOf` it annotates decides alone), `example`, `readOnly`, `x-*`
 * (annotations). Formats are checked with ajv-formats, but for {@link IGNORED_FORMATS}.
 *
 * Nothing is excused but {@link SCHEMA_EXCEPTIONS}: places where the document contradicts itself, each
 * with the evidence found in the document (a test fails when the evidence is gone, so that a refreshed
 * document drops the exception); and {@link SPEC_EXTENSIONS}: values the seed's service has that the
 * document (2024-08) does not list, each named.
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';

// ajv-formats is CommonJS: its function is the default export under Node's ESM loader.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export const FIXTURE_PATH = fileURLToPath(new URL('../fixtures/openapi/cloudflare-api-subset.json', import.meta.url));

/** The fixture: `source` says where and at which commit it was cut. */
export interface OfficialDocument {
  source: { repo: string; path: string; commit: string; read_with: string; selection: string[] };
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: Record<string, Record<string, unknown>>;
}

interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject | { $ref: string }>;
}
interface ResponseObject {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
}

/** An operation of the document: method (upper case), path template, operationId. */
export interface OfficialOperation {
  method: string;
  path: string;
  operationId: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Formats the document uses that are not checked, with why. */
export const IGNORED_FORMATS: Readonly<Record<string, string>> = {
  float: 'an OpenAPI number format (a width hint for code generators); `type: number` is checked',
};

/** A place where the document contradicts itself, how the checker reads it instead, and the evidence. */
export interface SchemaException {
  /** JSON pointer into the document (the fixture) of the schema that is changed. */
  pointer: string;
  /** What is wrong and why it is excused. */
  reason: string;
  /** The change: applied to a copy of the schema at `pointer`. */
  patch(schema: Record<string, unknown>): void;
  /** The contradiction as it stands in the document (empty: it is gone, drop the exception). */
  evidence(doc: OfficialDocument): string[];
}

const schemaAt = (doc: OfficialDocument, pointer: string): Record<string, unknown> =>
  pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).reduce<any>((n, k) => n?.[k], doc);

/**
 * The 4XX schemas that are `allOf: [<the success schema>, <prefix>_api-response-common-failure]` (the Lists
 * API's and Instant Logs'), as `METHOD path`; every other 4XX of the document is the failure schema alone.
 */
function failuresWithSuccess(paths: OfficialDocument['paths']): { where: string; schema: { allOf: unknown[] } }[] {
  const isFailure = (ref: string | undefined) => /_api-response-common-failure$/.test(ref ?? '');
  const out: { where: string; schema: { allOf: unknown[] } }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const m of METHODS) {
      const schema = (item[m]?.responses['4XX'] as ResponseObject | undefined)?.content?.['application/json']?.schema as { allOf?: { $ref?: string }[] } | undefined;
      if (schema?.allOf?.length === 2 && isFailure(schema.allOf[1]!.$ref) && !isFailure(schema.allOf[0]!.$ref)) out.push({ where: `${m.toUpperCase()} ${path}`, schema: schema as { allOf: unknown[] } });
    }
  }
  return out;
}

/**
 * The named exceptions. Nothing else in a response is excused.
 */
export const SCHEMA_EXCEPTIONS: readonly SchemaException[] = [
  {
    pointer: '/components/schemas/rulesets_RuleAction',
    reason:
      'rulesets_RuleAction has `pattern: ^[a-z]+$`, yet every rule of the document is `allOf: [rulesets_Rule, {action: {enum: [...]}}]` ' +
      'and those enums name actions with an underscore (js_challenge, log_custom_field, managed_challenge, serve_error, set_config, …): ' +
      'no rule with such an action could conform. Read as `^[a-z_]+$`.',
    patch(schema) {
      schema['pattern'] = '^[a-z_]+$';
    },
    evidence(doc) {
      const pattern = new RegExp(String(schemaAt(doc, '/components/schemas/rulesets_RuleAction')['pattern']));
      const actions = new Set<string>();
      for (const s of Object.values(doc.components['schemas'] ?? {})) {
        const parts = (s as { allOf?: { properties?: { action?: { enum?: unknown[] } } }[] }).allOf ?? [];
        for (const p of parts) for (const a of p.properties?.action?.enum ?? []) if (typeof a === 'string') actions.add(a);
      }
      return [...actions].filter((a) => !pattern.test(a)).sort();
    },
  },
  {
    pointer: '/components/schemas/logpush_kind',
    reason:
      'logpush_kind is `enum: ["edge"]` with `default: ""` and `example: ""`: a job that is not an Instant Logs job has kind "" ' +
      '(the default), which the enum refuses. Read as `enum: ["", "edge"]`.',
    patch(schema) {
      schema['enum'] = ['', ...(schema['enum'] as unknown[])];
    },
    evidence(doc) {
      const s = schemaAt(doc, '/components/schemas/logpush_kind');
      const allowed = (s['enum'] as unknown[] | undefined) ?? [];
      return (['default', 'example'] as const).filter((k) => k in s && !allowed.includes(s[k])).map((k) => `${k} ${JSON.stringify(s[k])}`);
    },
  },
  ...(['logpush_max_upload_bytes', 'logpush_max_upload_records', 'logpush_max_upload_interval_seconds'] as const).map((name): SchemaException => ({
    pointer: `/components/schemas/${name}`,
    reason:
      `${name}'s description says the setting is a range "or \`0\` to disable it", and its \`minimum\` refuses 0: a job with the ` +
      'setting disabled (as the description offers) could not conform. Read as 0, or the range.',
    patch(schema) {
      const minimum = schema['minimum'];
      delete schema['minimum'];
      schema['anyOf'] = [{ enum: [0] }, { minimum }];
    },
    evidence(doc) {
      const s = schemaAt(doc, `/components/schemas/${name}`);
      return String(s['description']).includes('`0` to disable') && Number(s['minimum']) > 0 ? [`minimum ${String(s['minimum'])}`] : [];
    },
  })),
  {
    pointer: '/components/schemas/lists_api-response-collection',
    reason:
      'every single-object answer of the Lists API (a list, an item, `{id}`, `{operation_id}`, a bulk operation) is ' +
      '`allOf: [lists_api-response-collection, {result: <object>}]`, and lists_api-response-collection makes `result` an array: ' +
      'no answer could be both. Its `result` is read as lists_api-response-common has it (an object or an array); each answer\'s own part still types it.',
    patch(schema) {
      const parts = schema['allOf'] as Record<string, any>[];
      delete parts[1]!['properties']['result']['type'];
      delete parts[1]!['properties']['result']['items'];
    },
    evidence(doc) {
      const collection = '#/components/schemas/lists_api-response-collection';
      if ((schemaAt(doc, '/components/schemas/lists_api-response-collection/allOf/1/properties/result') as { type?: string }).type !== 'array') return [];
      return Object.entries(doc.components['schemas'] ?? {})
        .filter(([, v]) => {
          const parts = (v as { allOf?: { $ref?: string; properties?: { result?: { $ref?: string; type?: string } } }[] }).allOf ?? [];
          const result = parts.find((x) => x.properties?.result)?.properties?.result;
          if (!parts.some((x) => x.$ref === collection) || !result) return false;
          const target = result.$ref ? schemaAt(doc, result.$ref.slice(1)) : result;
          return (target as { type?: string }).type === 'object' || ('properties' in (target as object));
        })
        .map(([k]) => k)
        .sort();
    },
  },
  {
    pointer: '/paths',
    reason:
      'every 4XX answer of the Lists API and of Instant Logs (`…/logpush/edge`) is `allOf: [<its success schema>, ' +
      '<prefix>_api-response-common-failure]`: the first demands `success: true` and a result, the second `success: false` and ' +
      '`result: null`, so no error answer could conform. Read as the failure schema alone, as the other Logpush operations\' 4XX ' +
      'already are (`allOf: [logpush_api-response-common-failure]`).',
    patch(paths) {
      for (const at of failuresWithSuccess(paths as OfficialDocument['paths'])) at.schema.allOf = [at.schema.allOf[1]];
    },
    evidence(doc) {
      return failuresWithSuccess(doc.paths).map((at) => at.where);
    },
  },
  {
    pointer: '/components/schemas/lists_item',
    reason:
      'lists_item is a `oneOf` of the item kinds\' *values* (lists_item_ip a string, lists_item_asn an integer, the hostname and ' +
      'redirect objects), while an item is an object holding one of them as a member (`{id, ip, comment, …}`, as its own ' +
      '`properties` and its example have it): no item could conform, its example included. Read as "exactly one of the members ' +
      'ip, redirect, hostname, asn".',
    patch(schema) {
      schema['oneOf'] = ['ip', 'redirect', 'hostname', 'asn'].map((m) => ({ required: [m] }));
    },
    evidence(doc) {
      const s = schemaAt(doc, '/components/schemas/lists_item') as { oneOf?: { $ref?: string }[]; example?: Record<string, unknown> };
      const kinds = (s.oneOf ?? []).map((x) => schemaAt(doc, String(x.$ref).slice(1)) as { type?: string; required?: string[] });
      const example = s.example ?? {};
      // The example is an object; it is none of the kinds when no object kind's required members are all in it.
      return kinds.some((k) => k.type === undefined && (k.required ?? []).every((m) => m in example)) ? [] : ['the example matches none of the oneOf'];
    },
  },
];

/**
 * A reading of the document widened by what the seed's service has and the document (2024-08) does not:
 * rulekit's spec (../shared/spec), or the service after the document's date (the official client v7
 * types it). Not a contradiction of the document with itself: a named difference of the service from it.
 * Nothing but these is added: an answer with any other value still fails.
 */
export interface SpecExtension {
  /** JSON pointer into the document of the schema that is widened. */
  pointer: string;
  /** What is added and why. */
  reason: string;
  /** The widening: applied to a copy of the schema at `pointer`. */
  patch(schema: Record<string, unknown>): void;
  /** What the document still lacks (empty: it has caught up, drop the extension). */
  evidence(doc: OfficialDocument): string[];
}

/**
 * The phases rulekit serves that the document's `rulesets_RulesetPhase` does not list, with why. A test
 * checks that they are exactly the phases of rulekit's catalog (src/ruleset/catalog.ts) the enum lacks.
 */
export const EXTENDED_PHASES: Readonly<Record<string, string>> = {
  network_transit: 'the seed\'s service (spec/service.md) has account rulesets of phase network_transit: network packet rules',
  magic_transit_ratelimit: 'a phase of the service newer than the document: Magic Firewall rate limiting',
  http_response_cache_settings: 'a phase of the service newer than the document: cache response rules (set_cache_control, set_cache_tags)',
};

/** The Logpush output timestamp formats of the service newer than the document (the official client v7 types them). */
export const EXTENDED_TIMESTAMP_FORMATS: Readonly<Record<string, string>> = {
  rfc3339ms: 'RFC 3339 with milliseconds: typed by the official client v7 (OutputOptions.timestamp_format), newer than the document',
  rfc3339ns: 'RFC 3339 with nanoseconds: typed by the official client v7 (OutputOptions.timestamp_format), newer than the document',
};

/** The one placeholder of a Logpush destination (spec/logpush.md: "`{DATE}` in a path is a placeholder"). */
const DATE_PLACEHOLDER = '{DATE}';
/** The format a destination_conf is read with: a URI once `{DATE}` stands for a date. */
const URI_WITH_DATE = 'uri-with-date-placeholder';

/** Widen an enum by named values; its evidence is the values the document's enum still lacks. */
function widenEnum(pointer: string, values: Readonly<Record<string, string>>, reason: string): SpecExtension {
  return {
    pointer,
    reason: `${reason}: ${Object.entries(values).map(([v, why]) => `${v} (${why})`).join('; ')}`,
    patch(schema) {
      schema['enum'] = [...(schema['enum'] as unknown[]), ...Object.keys(values)];
    },
    evidence(doc) {
      const listed = (schemaAt(doc, pointer)['enum'] as unknown[] | undefined) ?? [];
      return Object.keys(values).filter((v) => !listed.includes(v));
    },
  };
}

export const SPEC_EXTENSIONS: readonly SpecExtension[] = [
  widenEnum('/components/schemas/rulesets_RulesetPhase', EXTENDED_PHASES, 'phases the service has that the document does not list'),
  widenEnum('/components/schemas/logpush_output_options/properties/timestamp_format', EXTENDED_TIMESTAMP_FORMATS, 'timestamp formats newer than the document'),
  {
    pointer: '/components/schemas/logpush_destination_conf',
    reason:
      'a destination\'s path may hold the placeholder {DATE} (spec/logpush.md; the Logpush docs\' s3://bucket/logs/{DATE}?region=…), ' +
      'which `format: uri` refuses (`{` is not a URI character). Read as a URI once {DATE} stands for a date; any other brace still fails.',
    patch(schema) {
      schema['format'] = URI_WITH_DATE;
    },
    evidence(doc) {
      const s = schemaAt(doc, '/components/schemas/logpush_destination_conf');
      return s['format'] === 'uri' ? ['format: uri'] : [];
    },
  },
];

let loaded: { doc: OfficialDocument; ajv: Ajv; original: () => Ajv; validators: Map<string, ValidateFunction> } | undefined;

/** The fixture as it is on disk. */
export function officialDocument(): OfficialDocument {
  return JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as OfficialDocument;
}

const SCHEMA_ID = 'cloudflare-api-subset';

function load() {
  if (loaded) return loaded;
  const doc = officialDocument();
  const patched = structuredClone(doc);
  for (const e of SCHEMA_EXCEPTIONS) e.patch(schemaAt(patched, e.pointer));
  for (const x of SPEC_EXTENSIONS) x.patch(schemaAt(patched, x.pointer));
  let original: Ajv | undefined;
  loaded = { doc, ajv: compiler(patched), original: () => (original ??= compiler(structuredClone(doc))), validators: new Map() };
  return loaded;
}

/** An Ajv holding the document's components and paths under {@link SCHEMA_ID}. */
function compiler(doc: OfficialDocument): Ajv {
  normalize(doc.components);
  normalize(doc.paths);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  for (const f of Object.keys(IGNORED_FORMATS)) ajv.addFormat(f, true);
  const uri = fullFormats.uri as (s: string) => boolean;
  ajv.addFormat(URI_WITH_DATE, (s: string) => uri(s.split(DATE_PLACEHOLDER).join('20240806')));
  ajv.addSchema({ components: doc.components, paths: doc.paths }, SCHEMA_ID);
  return ajv;
}

/**
 * OpenAPI 3.0.3: `nullable` without `type` has no effect; Ajv refuses it, so it is dropped there. (The
 * document has none today; kept so that a refresh does not break the checker.)
 */
function normalize(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(normalize);
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if ('nullable' in o && !('type' in o)) delete o['nullable'];
  Object.values(o).forEach(normalize);
}

/** Every operation of the document, sorted by path then method. */
export function officialOperations(): OfficialOperation[] {
  const { doc } = load();
  const out: OfficialOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const m of METHODS) if (item[m]) out.push({ method: m.toUpperCase(), path, operationId: item[m].operationId });
  }
  return out.sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path < b.path ? -1 : 1));
}

/** The shape of a path template: its parameters' names left out (`/accounts/{}/rulesets/{}`). */
export const templateShape = (template: string) => template.replace(/\{[^}]*\}/g, '{}');

/** Whether a concrete path's segments fit a template (`{…}` takes one non-empty segment). */
function fits(template: string, segments: readonly string[]): boolean {
  const t = template.split('/');
  return t.length === segments.length && t.every((s, i) => (s.startsWith('{') ? segments[i] !== '' : s === segments[i]));
}
const segmentsOf = (path: string) => path.split('?')[0]!.replace(/\/+$/, '').split('/');

/**
 * The document's template for a concrete path (`/accounts/acc-1/rulesets/abc`, no `/client/v4`), if any:
 * of those that match, the one with the most literal segments (`…/lists/bulk_operations/{id}` before
 * `…/lists/{list_id}/items`).
 */
export function officialTemplate(method: string, path: string): string | undefined {
  const segments = segmentsOf(path);
  const literals = (t: string) => t.split('/').filter((s) => !s.startsWith('{')).length;
  return officialOperations()
    .filter((op) => op.method === method.toUpperCase() && fits(op.path, segments))
    .sort((a, b) => literals(b.path) - literals(a.path))[0]?.path;
}

/** A route the server serves that the document (2024-08) does not have, because the service added it later. */
export interface NewerRoute {
  /** The official client v7's method that calls it. */
  sdk: string;
  /** The document's operation (same method) this route is the newer path of: its answers are checked against that. */
  sameAs?: string;
}

/**
 * The server's routes that are newer than the document, as `METHOD template`: the official client v7 calls
 * them. Not rulekit's own (those are the official-schema test's OWN).
 */
export const NEWER_THAN_DOCUMENT: Readonly<Record<string, NewerRoute>> = {
  'POST /accounts/{account_id}/logpush/validate/destination': { sdk: 'client.logpush.validate.destination' },
  'POST /zones/{zone_id}/logpush/validate/destination': { sdk: 'client.logpush.validate.destination' },
  'GET /zones/{zone_id}/logpush/edge/jobs': { sdk: 'client.logpush.edge.get', sameAs: '/zones/{zone_id}/logpush/edge' },
  'POST /zones/{zone_id}/logpush/edge/jobs': { sdk: 'client.logpush.edge.create', sameAs: '/zones/{zone_id}/logpush/edge' },
  // Logpush transformers came after the document's date (SDK v7's client.logpush.transformers).
  'GET /accounts/{account_id}/logpush/transformers': { sdk: 'client.logpush.transformers.list' },
  'POST /accounts/{account_id}/logpush/transformers': { sdk: 'client.logpush.transformers.create' },
  'POST /accounts/{account_id}/logpush/transformers/preview': { sdk: 'client.logpush.transformers.preview' },
  'GET /accounts/{account_id}/logpush/transformers/{transformer_id}': { sdk: 'client.logpush.transformers.get' },
  'PUT /accounts/{account_id}/logpush/transformers/{transformer_id}': { sdk: 'client.logpush.transformers.update' },
  'DELETE /accounts/{account_id}/logpush/transformers/{transformer_id}': { sdk: 'client.logpush.transformers.delete' },
  'GET /accounts/{account_id}/logpush/transformers/{transformer_id}/content': { sdk: 'client.logpush.transformers.content.get' },
  'GET /accounts/{account_id}/logpush/transformers/{transformer_id}/versions': { sdk: 'client.logpush.transformers.versions.list' },
};

/**
 * The document's template an answer to this request is checked against: {@link officialTemplate}, or
 * for a route {@link NEWER_THAN_DOCUMENT} names as the newer path of an operation, that operation's.
 */
export function checkedTemplate(method: string, path: string): string | undefined {
  const official = officialTemplate(method, path);
  if (official) return official;
  const segments = segmentsOf(path);
  for (const [route, newer] of Object.entries(NEWER_THAN_DOCUMENT)) {
    const [m, template] = route.split(' ') as [string, string];
    if (newer.sameAs && m === method.toUpperCase() && fits(template, segments)) return newer.sameAs;
  }
  return undefined;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The response object the document gives this status (exact, then `4XX`-style, then `default`), with its pointer. */
function responseFor(doc: OfficialDocument, method: string, template: string, status: number): { pointer: string; response: ResponseObject } | string {
  const op = doc.paths[template]?.[method.toLowerCase()];
  if (!op) return `the official schema has no operation ${method.toUpperCase()} ${template}`;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => op.responses[k]);
  if (!key) return `${op.operationId} has no response for ${status} (it has ${Object.keys(op.responses).join(', ')})`;
  let pointer = `/paths/${escapePointer(template)}/${method.toLowerCase()}/responses/${key}`;
  let response = op.responses[key]!;
  while ('$ref' in response) {
    pointer = (response.$ref as string).slice(1);
    response = schemaAt(doc, pointer) as unknown as ResponseObject;
  }
  return { pointer, response };
}

/**
 * Errors of a response against the document (empty when it conforms): `text` is the body as sent (empty
 * for none). A response the document gives no content must have no body; else the body must be JSON
 * that its `application/json` schema accepts.
 */
export function checkResponse(method: string, template: string, status: number, text: string): string[] {
  const { doc, ajv, validators } = load();
  const found = responseFor(doc, method, template, status);
  if (typeof found === 'string') return [found];
  const { pointer, response } = found;
  const where = `${method.toUpperCase()} ${template} ${status} (${pointer})`;
  const media = response.content?.['application/json'];
  if (!media?.schema) return text === '' ? [] : [`${where}: the official response has no body, this one has ${text.length} bytes`];
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${where}: the body is not JSON: ${JSON.stringify(text.slice(0, 80))}`];
  }
  const schemaPointer = `${pointer}/content/application~1json/schema`;
  let validate = validators.get(schemaPointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${SCHEMA_ID}#${schemaPointer}` });
    validators.set(schemaPointer, validate);
  }
  return validate(body) ? [] : describeErrors(where, validate.errors ?? []);
}

function describeErrors(where: string, errors: readonly ErrorObject[]): string[] {
  return errors.map((e) => `${where}: ${e.instancePath || '(body)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} [schema ${e.schemaPath}]`);
}

/**
 * The document against itself: every `example` and `default` of a schema checked by the schema it sits
 * in, as published (no exceptions applied). What fails is a contradiction of the document's own.
 */
export function selfContradictions(): { pointer: string; keyword: 'example' | 'default'; errors: string[] }[] {
  const { doc, original } = load();
  const ajv = original();
  const out: { pointer: string; keyword: 'example' | 'default'; errors: string[] }[] = [];
  type Kind = 'schema' | 'map' | 'other';
  const SUBSCHEMA = new Set(['items', 'additionalProperties', 'not', 'allOf', 'oneOf', 'anyOf']);
  const visit = (node: unknown, pointer: string, kind: Kind): void => {
    if (Array.isArray(node)) return node.forEach((x, i) => visit(x, `${pointer}/${i}`, kind));
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (kind === 'schema') {
      for (const keyword of ['example', 'default'] as const) {
        if (!(keyword in o)) continue;
        const validate = ajv.compile({ $ref: `${SCHEMA_ID}#${pointer}` });
        if (!validate(o[keyword])) out.push({ pointer, keyword, errors: describeErrors(`${pointer} ${keyword}`, validate.errors ?? []) });
      }
    }
    for (const [k, v] of Object.entries(o)) {
      const at = `${pointer}/${escapePointer(k)}`;
      if (kind === 'map') visit(v, at, 'schema'); // the members of `properties`: schemas, whatever their names
      else if (kind === 'schema') {
        if (k === 'properties' || k === 'patternProperties') visit(v, at, 'map');
        else if (SUBSCHEMA.has(k)) visit(v, at, 'schema');
        // example, default, enum, discriminator…: values, not schemas
      } else visit(v, at, k === 'schema' ? 'schema' : 'other');
    }
  };
  visit(doc.components['schemas'], '/components/schemas', 'map');
  visit(doc.paths, '/paths', 'other');
  visit(doc.components['requestBodies'], '/components/requestBodies', 'other');
  visit(doc.components['responses'], '/components/responses', 'other');
  return out;
}
