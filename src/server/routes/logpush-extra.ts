/**
 * The Logpush operations beside jobs, as the service has them under `/{accounts|zones}/{id}/logpush`:
 * a dataset's fields (from rulekit's dataset catalogs) and jobs, ownership challenges
 * (logpush-ownership.ts), destination and origin checks, and Instant Logs sessions (`/zones/{zone_id}/
 * logpush/edge`, and `…/edge/jobs` where SDK v7 calls it: checked and stored; the server streams no logs).
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hasErrors, suggest, type Diagnostic } from '../../diagnostics/index.js';
import { checkLogFilter, checkLogpullOptions, DATASETS_BY_SCOPE, DATASET_SCOPES, getDataset, type Dataset } from '../../logpush/index.js';
import { sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import {
  challengeFileName, challengeLocation, destinationDiagnostics, needsOwnershipChallenge, newChallengeToken,
  OWNERSHIP_CHALLENGE_HEADER, OWNERSHIP_CHALLENGE_TTL_MS, writeChallengeFile,
} from '../logpush-ownership.js';
import type { StoredEdgeJob } from '../store/index.js';
import { bodyOf, EnvelopeError, ownerOf, SCOPES, type RouteContext, type Scope } from './common.js';
import { scopeParams } from './schemas.js';

/** How long an Instant Logs session lasts (docs: logs/instant-logs, "Maximum session time is 60 minutes"). */
export const EDGE_SESSION_MS = 60 * 60 * 1000;

/** The WebSocket address the service gives a session (the reference server streams nothing to it). */
export const edgeDestination = (sessionId: string) => `wss://logs.cloudflare.com/instant-logs/ws/sessions/${sessionId}`;

const tags = ['logpush'];
const id = { type: 'string', minLength: 1, maxLength: 64 } as const;
const destinationConf = { type: 'string', maxLength: 4096, description: 'A destination, as a job\'s destination_conf.' } as const;
const datasetParams = (scope: Scope) => ({
  type: 'object',
  properties: { [scope.param]: id, dataset_id: { type: 'string', enum: [...DATASETS_BY_SCOPE[scope.scope].keys()] } },
  required: [scope.param, 'dataset_id'],
});
const body = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required });

/** The body's object (a JSON value that is not one is refused). */
function objectBody(req: FastifyRequest): Record<string, unknown> {
  const value = bodyOf(req).value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw EnvelopeError.of('server-invalid-member', 'the body is a JSON object', '/');
  return value as Record<string, unknown>;
}

/** A string member: required unless `optional`; null taken when `nullable`. */
function stringMember(o: Record<string, unknown>, name: string, how: { optional?: boolean; nullable?: boolean; max?: number } = {}): string | undefined {
  const v = o[name];
  if (v === undefined && how.optional) return undefined;
  if (v === null && how.nullable) return undefined;
  if (v === undefined) throw EnvelopeError.of('server-invalid-member', `the body needs "${name}"`, `/${name}`);
  if (typeof v !== 'string') throw EnvelopeError.of('server-invalid-member', `"${name}" is a string${how.nullable ? ' or null' : ''}, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`, `/${name}`);
  if (how.max !== undefined && v.length > how.max) throw EnvelopeError.of('server-invalid-member', `"${name}" is ${v.length} characters; the limit is ${how.max}`, `/${name}`);
  return v;
}

/** Diagnostics of a string member's content, re-based from an inner text that starts `shift` characters before it. */
function rebased(diagnostics: readonly Diagnostic[], pointer: string, shift = 0): Diagnostic[] {
  return diagnostics.map((d) => {
    const out: Diagnostic = { ...d, pointer };
    if (d.range) {
      out.range = { start: Math.max(0, d.range.start - shift), end: Math.max(0, d.range.end - shift) };
      out.rangeIn = 'value';
    } else delete out.rangeIn;
    // A fix's edits are ranges in the inner text; shifted, they would be offered out of place.
    if (shift) delete out.fix;
    return out;
  });
}

export function logpushExtraRoutes(app: FastifyInstance, ctx: RouteContext): void {
  /** The dataset a path names, of this scope; else the answer that says where it is. */
  function datasetOf(req: FastifyRequest, scope: Scope): Dataset {
    const name = (req.params as Record<string, string>)['dataset_id']!;
    const dataset = getDataset(name, scope.scope);
    if (dataset) return dataset;
    const scopes = DATASET_SCOPES.get(name);
    if (scopes?.length) {
      const other = scopes[0]!;
      throw EnvelopeError.of('server-dataset-not-found', `${name} is ${other === 'account' ? 'an account' : 'a zone'} dataset: ask /${other === 'account' ? 'accounts/{account_id}' : 'zones/{zone_id}'}/logpush/datasets/${name}/…, not this ${scope.noun}'s`);
    }
    const s = suggest(name, DATASETS_BY_SCOPE[scope.scope].keys());
    throw EnvelopeError.of('server-dataset-not-found', `${JSON.stringify(name.slice(0, 64))} is not a ${scope.noun} Logpush dataset${s ? `; did you mean "${s}"?` : ''} The ${scope.noun} datasets are ${[...DATASETS_BY_SCOPE[scope.scope].keys()].join(', ')}`);
  }

  for (const scope of SCOPES) {
    const base = `/${scope.path}/:${scope.param}/logpush`;
    const params = scopeParams(scope);

    app.get(`${base}/datasets/:dataset_id/fields`, { schema: { tags, summary: 'A dataset\'s fields: name → description', params: datasetParams(scope) } }, async (req, reply) => {
      const dataset = datasetOf(req, scope);
      return sendResult(reply, Object.fromEntries(dataset.fields.map((f) => [f.name, f.deprecated ? `${f.description} (deprecated)` : f.description])));
    });

    app.get(`${base}/datasets/:dataset_id/jobs`, { schema: { tags, summary: `The ${scope.noun}'s Logpush jobs of a dataset`, params: datasetParams(scope) } }, async (req, reply) => {
      const dataset = datasetOf(req, scope);
      return sendResult(reply, (await ctx.store.listJobs(ownerOf(req, scope))).filter((j) => j.dataset === dataset.name));
    });

    app.post(`${base}/ownership`, {
      schema: { tags, summary: 'Issue an ownership challenge: a token written into the destination (or answered, with no Logpush directory)', params, body: body({ destination_conf: destinationConf }, ['destination_conf']) },
    }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const dest = stringMember(objectBody(req), 'destination_conf', { max: 4096 })!;
      const problems = destinationDiagnostics(dest, ctx.logpushDir);
      if (hasErrors(problems)) return sendErrors(reply, 400, problems);
      if (!needsOwnershipChallenge(dest)) {
        return sendResult(reply, { filename: '', message: `${dest.split(':')[0]}:// destinations need no ownership challenge: create the job without one`, valid: false });
      }
      const now = Date.now();
      const token = newChallengeToken(owner, dest, now + OWNERSHIP_CHALLENGE_TTL_MS);
      await ctx.store.logpushExtra.addOwnershipChallenge(owner, dest, token, now + OWNERSHIP_CHALLENGE_TTL_MS, now);
      const file = challengeFileName();
      const where = challengeLocation(dest, ctx.logpushDir, file);
      reply.header(OWNERSHIP_CHALLENGE_HEADER, token);
      if (!where.dir) {
        return sendResult(reply, { filename: where.filename, message: `the reference server writes into no bucket (start it with a Logpush directory to have the file written): the token is in the ${OWNERSHIP_CHALLENGE_HEADER} header`, valid: true });
      }
      try {
        await writeChallengeFile(where.dir, file, token);
      } catch (e) {
        return sendResult(reply, { filename: where.filename, message: `the challenge file could not be written: ${(e as Error).message}`, valid: false });
      }
      return sendResult(reply, { filename: where.filename, message: '', valid: true });
    });

    app.post(`${base}/ownership/validate`, {
      schema: { tags, summary: 'Whether a token is an unexpired challenge this server issued for the destination', params, body: body({ destination_conf: destinationConf, ownership_challenge: { type: 'string', maxLength: 4096 } }, ['destination_conf', 'ownership_challenge']) },
    }, async (req, reply) => {
      const o = objectBody(req);
      const dest = stringMember(o, 'destination_conf', { max: 4096 })!;
      const token = stringMember(o, 'ownership_challenge', { max: 4096 })!;
      return sendResult(reply, { valid: await ctx.store.logpushExtra.hasOwnershipChallenge(ownerOf(req, scope), dest, token, Date.now()) });
    });

    app.post(`${base}/validate/destination`, {
      schema: { tags, summary: 'Check a destination as job creation checks it', params, body: body({ destination_conf: destinationConf }, ['destination_conf']) },
    }, async (req, reply) => {
      const dest = stringMember(objectBody(req), 'destination_conf', { max: 4096 })!;
      const problems = destinationDiagnostics(dest, ctx.logpushDir);
      const errors = problems.filter((d) => d.severity === 'error');
      return sendResult(reply, { message: errors.map((d) => d.message).join('; '), valid: errors.length === 0 }, problems);
    });

    app.post(`${base}/validate/destination/exists`, {
      schema: { tags, summary: `Whether a job of the ${scope.noun} pushes to this destination`, params, body: body({ destination_conf: destinationConf }, ['destination_conf']) },
    }, async (req, reply) => {
      const dest = stringMember(objectBody(req), 'destination_conf', { max: 4096 })!;
      const jobs = await ctx.store.listJobs(ownerOf(req, scope));
      return sendResult(reply, { exists: jobs.some((j) => j.destination_conf === dest) });
    });

    app.post(`${base}/validate/origin`, {
      schema: { tags, summary: 'Check logpull_options (options and their values; fields are not checked against a dataset here)', params, body: body({ logpull_options: { type: ['string', 'null'] } }, ['logpull_options']) },
    }, async (req, reply) => {
      const o = objectBody(req);
      if (!('logpull_options' in o)) throw EnvelopeError.of('server-invalid-member', 'the body needs "logpull_options" (a string, or null)', '/logpull_options');
      const options = stringMember(o, 'logpull_options', { nullable: true });
      const problems = options === undefined ? [] : checkLogpullOptions(options, undefined);
      const errors = problems.filter((d) => d.severity === 'error');
      return sendResult(reply, { message: errors.map((d) => d.message).join('; '), valid: errors.length === 0 }, problems);
    });
  }

  // Instant Logs: zones only, over the http_requests dataset (the one the docs name).
  const zone = SCOPES.find((s) => s.path === 'zones')!;
  const http = getDataset('http_requests', 'zone')!;
  // The 2024-08 OpenAPI document has `…/logpush/edge`; SDK v7 calls `…/logpush/edge/jobs`: both are served.
  for (const edge of ['/zones/:zone_id/logpush/edge', '/zones/:zone_id/logpush/edge/jobs']) {
    app.get(edge, { schema: { tags, summary: 'The zone\'s Instant Logs sessions (at most one, for 60 minutes)', params: scopeParams(zone) } }, async (req, reply) => {
      return sendResult(reply, await ctx.store.logpushExtra.listEdgeJobs(ownerOf(req, zone), Date.now()));
    });
    app.post(edge, {
      schema: {
        tags, summary: 'Start an Instant Logs session (it replaces the zone\'s session; nothing is streamed)', params: scopeParams(zone),
        body: body({
          fields: { type: 'string', description: 'Comma-separated http_requests fields.' },
          filter: { type: 'string', description: 'A Logpush filter, {"where": …} as a string; "" for none.' },
          sample: { type: 'integer', minimum: 1, description: '1: every record, 10: one in ten…' },
          kind: { type: 'string', enum: ['instant-logs'] },
        }, []),
      },
    }, async (req, reply) => {
      const o = objectBody(req);
      const fields = stringMember(o, 'fields', { optional: true }) ?? '';
      const filter = stringMember(o, 'filter', { optional: true }) ?? '';
      const sample = o['sample'] ?? 1;
      const kind = stringMember(o, 'kind', { optional: true });
      const problems: Diagnostic[] = [];
      if (kind !== undefined && kind !== 'instant-logs') problems.push(serverDiagnostic('server-invalid-member', `"kind" of an Instant Logs job is "instant-logs", not ${JSON.stringify(kind.slice(0, 40))}`, '/kind'));
      if (typeof sample !== 'number' || !Number.isInteger(sample) || sample < 1) {
        problems.push(serverDiagnostic('server-invalid-member', `"sample" is an integer from 1 (every record; 10: one record in ten), not ${JSON.stringify(sample)}`, '/sample'));
      }
      if (fields !== '') problems.push(...rebased(checkLogpullOptions(`fields=${fields}`, http, '/fields'), '/fields', 'fields='.length));
      if (filter.trim() !== '') problems.push(...rebased(checkLogFilter(filter, { dataset: http.name, scope: 'zone' }).diagnostics, '/filter'));
      if (hasErrors(problems)) return sendErrors(reply, 400, problems);
      const sessionId = randomBytes(16).toString('hex');
      const job: StoredEdgeJob = { destination_conf: edgeDestination(sessionId), fields, filter, sample: sample as number, session_id: sessionId };
      return sendResult(reply, await ctx.store.logpushExtra.createEdgeJob(ownerOf(req, zone), job, Date.now() + EDGE_SESSION_MS), problems);
    });
  }
}
