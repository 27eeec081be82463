/**
 * Logpush transformers (`/accounts/{account_id}/logpush/transformers`, docs: logs/logpush/transformers):
 * create, list, read, update (a new version when `code` is given), delete, the SQL of a version
 * (`…/{id}/content`), the version history (`…/{id}/versions`, newest first) and `…/preview`, which runs a
 * query on one record. SQL is checked as the service checks it before saving (logpush/transformer.ts).
 *
 * Jobs do not reference transformers here: the official client's job types have no `transformer_id`, so
 * `associated_jobs` is always empty and a delete is never refused for jobs that use the transformer.
 * @module
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Diagnostic } from '../../diagnostics/index.js';
import { checkTransformer, MAX_TRANSFORMER_SQL, previewTransformer } from '../../logpush/index.js';
import { sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import type { StoredTransformer } from '../store/index.js';
import { bodyOf, EnvelopeError, paramOf, SCOPES, type RouteContext } from './common.js';
import { scopeParams } from './schemas.js';

/** Limits of the API schema (and the docs' Limits table: name 255 bytes, description 4,096 bytes). */
export const TRANSFORMER_LIMITS = { name: 255, description: 4096, code: MAX_TRANSFORMER_SQL, versions: 10 } as const;

const tags = ['logpush'];
const account = SCOPES.find((s) => s.path === 'accounts')!;
const base = '/accounts/:account_id/logpush/transformers';
const transformerId = { type: 'string', pattern: '^[1-9][0-9]*$', description: 'The transformer ID (an integer from 1).' } as const;
const params = { type: 'object', properties: { ...scopeParams(account).properties, transformer_id: transformerId }, required: ['account_id', 'transformer_id'] };
const sql = { type: 'string', maxLength: MAX_TRANSFORMER_SQL, description: 'One SQL query; FROM names the Logpush dataset.' } as const;
const writeBody = (required: string[]) => ({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, description: `At most ${TRANSFORMER_LIMITS.name} bytes.` },
    code: sql,
    description: { type: 'string', description: `At most ${TRANSFORMER_LIMITS.description} bytes; omitted: none (an update clears it).` },
  },
  required,
});

/** The transformer as the API answers it. */
const answer = (t: StoredTransformer) => ({ id: t.id, name: t.name, description: t.description, dataset: t.dataset, associated_jobs: [], created_at: t.created_at, updated_at: t.updated_at });

const invalid = (message: string, pointer: string) => EnvelopeError.of('server-invalid-transformer', message, pointer);

function objectBody(req: FastifyRequest): Record<string, unknown> {
  const value = bodyOf(req).value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('the body is a JSON object', '/');
  return value as Record<string, unknown>;
}

/** A string member of at most `maxBytes` UTF-8 bytes (or `maxChars` characters): required (non-empty) unless `optional`. */
function text(o: Record<string, unknown>, name: string, how: { optional?: boolean; maxBytes?: number; maxChars?: number }): string | undefined {
  const v = o[name];
  if ((v === undefined || v === null) && how.optional) return undefined;
  if (v === undefined || v === null || v === '') throw invalid(`missing required field: ${name}`, `/${name}`);
  if (typeof v !== 'string') throw invalid(`"${name}" is a string, not ${Array.isArray(v) ? 'an array' : typeof v}`, `/${name}`);
  const bytes = Buffer.byteLength(v);
  if (how.maxBytes !== undefined && bytes > how.maxBytes) throw invalid(`"${name}" is ${bytes} bytes; the limit is ${how.maxBytes}`, `/${name}`);
  if (how.maxChars !== undefined && v.length > how.maxChars) throw invalid(`"${name}" is ${v.length} characters; the limit is ${how.maxChars}`, `/${name}`);
  return v;
}

/** The SQL's diagnostics placed in the body: their ranges are inside the member's string. */
const at = (diagnostics: readonly Diagnostic[], pointer: string): Diagnostic[] =>
  diagnostics.map((d) => ({ ...d, pointer: d.pointer ?? pointer, ...(d.range && d.pointer === undefined ? { rangeIn: 'value' as const } : {}) }));

/** A positive integer of a path or query parameter; undefined when absent. */
function integer(raw: unknown, what: string, range?: { min: number; max: number }): number | undefined {
  if (raw === undefined) return undefined;
  const s = String(raw);
  const n = /^[1-9][0-9]{0,14}$/.test(s) ? Number(s) : NaN;
  if (Number.isNaN(n) || (range && (n < range.min || n > range.max))) {
    throw EnvelopeError.of('server-invalid-parameter', `${what} is an integer from ${range?.min ?? 1}${range ? ` to ${range.max}` : ''}, not ${JSON.stringify(s.slice(0, 40))}`);
  }
  return n;
}

export function logpushTransformerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const store = ctx.store.transformers;
  const ids = (req: FastifyRequest) => ({ account: paramOf(req, 'account_id'), id: integer(paramOf(req, 'transformer_id'), 'a transformer id')! });
  const notFound = (id: number) => EnvelopeError.of('server-transformer-not-found', `this account has no Logpush transformer ${id}`);

  /** The SQL checked: its dataset, or the 400 answer listing what is wrong. */
  function checked(code: string, pointer: string): { dataset: string | null; warnings: Diagnostic[] } {
    const result = checkTransformer(code);
    const diagnostics = at(result.diagnostics, pointer);
    if (diagnostics.some((d) => d.severity === 'error')) throw new EnvelopeError(400, diagnostics);
    return { dataset: result.dataset ?? null, warnings: diagnostics };
  }

  app.get(base, { schema: { tags, summary: 'List the account\'s Logpush transformers', params: scopeParams(account) } }, async (req, reply) => {
    return sendResult(reply, (await store.list(paramOf(req, 'account_id'))).map(answer));
  });

  app.post(base, { schema: { tags, summary: 'Create a Logpush transformer: its SQL is checked and stored as version 1', params: scopeParams(account), body: writeBody(['name', 'code']) } }, async (req, reply) => {
    const o = objectBody(req);
    const name = text(o, 'name', { maxBytes: TRANSFORMER_LIMITS.name })!;
    const code = text(o, 'code', { maxChars: TRANSFORMER_LIMITS.code })!;
    const description = text(o, 'description', { optional: true, maxBytes: TRANSFORMER_LIMITS.description }) ?? '';
    const { dataset, warnings } = checked(code, '/code');
    const t = await store.create(paramOf(req, 'account_id'), { name, description, code, dataset }, new Date().toISOString());
    return sendResult(reply, answer(t), warnings);
  });

  app.post(`${base}/preview`, {
    schema: {
      tags, summary: 'Run a transformer\'s SQL on one log record: the delivered record, or null when the query drops it (nothing is stored)', params: scopeParams(account),
      body: { type: 'object', properties: { input: { type: 'object', description: 'One log record of the dataset.' }, sql }, required: ['input', 'sql'] },
    },
  }, async (req, reply) => {
    const o = objectBody(req);
    const query = text(o, 'sql', { maxChars: TRANSFORMER_LIMITS.code })!;
    if (o['input'] === undefined) throw invalid('missing required field: input (one log record, a JSON object)', '/input');
    const preview = previewTransformer(query, o['input'], '/input');
    if ('notRunnable' in preview) {
      const d = { ...serverDiagnostic('server-transformer-not-runnable', `the query is valid, but ${preview.notRunnable.reason}: preview it on the service`, '/sql'), range: preview.notRunnable.range, rangeIn: 'value' as const };
      return sendErrors(reply, 501, [d]);
    }
    if ('errors' in preview) return sendErrors(reply, 400, at(preview.errors, '/sql'));
    return sendResult(reply, preview.output, preview.diagnostics);
  });

  app.get(`${base}/:transformer_id`, { schema: { tags, summary: 'Read a Logpush transformer', params } }, async (req, reply) => {
    const { account: a, id } = ids(req);
    const t = await store.get(a, id);
    if (!t) throw notFound(id);
    return sendResult(reply, answer(t));
  });

  app.put(`${base}/:transformer_id`, {
    schema: { tags, summary: 'Update a Logpush transformer: name and description; with code, a new version of its SQL', params, body: writeBody(['name']) },
  }, async (req, reply) => {
    const { account: a, id } = ids(req);
    const o = objectBody(req);
    const name = text(o, 'name', { maxBytes: TRANSFORMER_LIMITS.name })!;
    const code = text(o, 'code', { optional: true, maxChars: TRANSFORMER_LIMITS.code });
    const description = text(o, 'description', { optional: true, maxBytes: TRANSFORMER_LIMITS.description }) ?? '';
    let warnings: Diagnostic[] = [];
    let change: { code: string; dataset: string | null } | undefined;
    if (code !== undefined) {
      const c = checked(code, '/code');
      warnings = c.warnings;
      change = { code, dataset: c.dataset };
    }
    const t = await store.update(a, id, { name, description, ...(change ? { code: change } : {}) }, new Date().toISOString());
    if (!t) throw notFound(id);
    return sendResult(reply, answer(t), warnings);
  });

  app.delete(`${base}/:transformer_id`, { schema: { tags, summary: 'Delete a Logpush transformer and its versions', params } }, async (req, reply) => {
    const { account: a, id } = ids(req);
    if (!(await store.delete(a, id))) throw notFound(id);
    return sendResult(reply, { id });
  });

  app.get(`${base}/:transformer_id/content`, {
    schema: { tags, summary: 'The SQL of a transformer: the current version, or the one `version_id` names', params, querystring: { type: 'object', properties: { version_id: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'A version\'s id (from …/versions).' } } } },
  }, async (req, reply) => {
    const { account: a, id } = ids(req);
    const versionId = integer((req.query as Record<string, unknown>)['version_id'], 'version_id');
    const content = await store.content(a, id, versionId);
    if (content === 'no-transformer') throw notFound(id);
    if (content === 'no-version') throw EnvelopeError.of('server-transformer-version-not-found', `transformer ${id} has no version with id ${versionId}; …/versions lists its versions`);
    return sendResult(reply, { content });
  });

  app.get(`${base}/:transformer_id/versions`, {
    schema: { tags, summary: 'A transformer\'s versions, newest first', params, querystring: { type: 'object', properties: { limit: { type: 'string', pattern: '^[1-9][0-9]*$', description: `How many (1 to ${TRANSFORMER_LIMITS.versions}, the default).` } } } },
  }, async (req, reply) => {
    const { account: a, id } = ids(req);
    const limit = integer((req.query as Record<string, unknown>)['limit'], 'limit', { min: 1, max: TRANSFORMER_LIMITS.versions }) ?? TRANSFORMER_LIMITS.versions;
    const versions = await store.versions(a, id, limit);
    if (!versions) throw notFound(id);
    return sendResult(reply, versions);
  });
}
