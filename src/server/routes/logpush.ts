/**
 * Logpush job routes, at zone and account level: list, create, read, update, delete. Bodies are validated
 * by `validateLogpushJob` with the route's scope (a dataset of the other scope is refused) and the zone's
 * custom-field rules so that a job naming `RequestHeaders` while
 * the zone logs none is reported. A job to a destination that needs an ownership challenge is created (or
 * moved there) only with a token this server issued (logpush-ownership.ts).
 * @module
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { hasErrors } from '../../diagnostics/index.js';
import { validateLogpushJob } from '../../logpush/index.js';
import type { Owner } from '../store/index.js';
import { newJob, updateJob } from '../records.js';
import { sendError, sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import { bodyOf, dryRunOf, ownerOf, SCOPES, validatedOffThread, type RouteContext, type Scope } from './common.js';
import { validateBody } from '../body.js';
import { ownershipRefusal, withFileDestination } from '../logpush-ownership.js';
import { dryRunQuery, jobBodySchema, jobParams, scopeParams } from './schemas.js';

export function logpushRoutes(app: FastifyInstance, ctx: RouteContext): void {
  async function customFieldRules(owner: Owner): Promise<unknown[] | undefined> {
    if (owner.scope !== 'zones') return undefined;
    const rulesets = await ctx.store.listRulesets(owner);
    const r = rulesets.find((x) => x.phase === 'http_log_custom_fields' && x.kind === 'zone');
    return r ? r.rules.filter((x) => x.enabled) : [];
  }

  function jobId(raw: string, reply: FastifyReply): number | undefined {
    if (!/^[1-9][0-9]{0,14}$/.test(raw)) {
      sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', `a Logpush job id is a positive integer, not ${JSON.stringify(raw.slice(0, 40))}`)]);
      return undefined;
    }
    return Number(raw);
  }

  const notFound = (reply: FastifyReply, scope: Scope, id: number) => sendError(reply, 'server-job-not-found', `this ${scope.noun} has no Logpush job ${id}`);

  for (const scope of SCOPES) {
    const base = `/${scope.path}/:${scope.param}/logpush/jobs`;
    const tags = ['logpush'];

    app.get(base, { schema: { tags, summary: `List the ${scope.noun}'s Logpush jobs`, params: scopeParams(scope) } }, async (req, reply) => {
      return sendResult(reply, await ctx.store.listJobs(ownerOf(req, scope)));
    });

    app.post(base, { schema: { tags, summary: `Create a ${scope.noun} Logpush job`, params: scopeParams(scope), querystring: dryRunQuery, body: jobBodySchema(scope, 'create') } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const body = bodyOf(req);
      const rules = await customFieldRules(owner);
      const context = { operation: 'create' as const, scope: scope.scope, customFieldRules: rules };
      const diagnostics = withFileDestination(await validatedOffThread(ctx, body.text, (t) => t.job(body.text, context), () => validateBody(body, (input) => validateLogpushJob(input, context))), body.value, ctx.logpushDir);
      if (hasErrors(diagnostics)) return sendErrors(reply, 400, diagnostics);
      const refusal = await ownershipRefusal(ctx.store, owner, body.value as Record<string, unknown>, Date.now());
      if (refusal) return sendErrors(reply, 400, [refusal]);
      const job = await ctx.store.createJob(owner, newJob(body.value as Record<string, unknown>), { dryRun: dryRunOf(req) });
      return sendResult(reply, job, diagnostics);
    });

    app.get(`${base}/:job_id`, { schema: { tags, summary: 'Read a Logpush job', params: jobParams(scope) } }, async (req, reply) => {
      const id = jobId((req.params as Record<string, string>)['job_id']!, reply);
      if (id === undefined) return reply;
      const job = await ctx.store.getJob(ownerOf(req, scope), id);
      return job ? sendResult(reply, job) : notFound(reply, scope, id);
    });

    app.put(`${base}/:job_id`, { schema: { tags, summary: 'Update a Logpush job: the members given replace the stored ones', params: jobParams(scope), querystring: dryRunQuery, body: jobBodySchema(scope, 'update') } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = jobId((req.params as Record<string, string>)['job_id']!, reply);
      if (id === undefined) return reply;
      const body = bodyOf(req);
      const stored = await ctx.store.getJob(owner, id);
      if (!stored) return notFound(reply, scope, id);
      const rules = await customFieldRules(owner);
      const context = { operation: 'update' as const, scope: scope.scope, dataset: stored.dataset ?? undefined, customFieldRules: rules };
      const diagnostics = withFileDestination(await validatedOffThread(ctx, body.text, (t) => t.job(body.text, context), () => validateBody(body, (input) => validateLogpushJob(input, context))), body.value, ctx.logpushDir);
      // A body that is not an object is already an error above; it must not be read as one here.
      const value = (body.value !== null && typeof body.value === 'object' && !Array.isArray(body.value) ? body.value : {}) as Record<string, unknown>;
      if (typeof value['dataset'] === 'string' && value['dataset'] !== stored.dataset) {
        diagnostics.push(serverDiagnostic('server-immutable-member', `"dataset" is fixed when a job is created: this job's is ${JSON.stringify(stored.dataset)}; create a new job for ${JSON.stringify(value['dataset'])}`, '/dataset'));
      }
      if (hasErrors(diagnostics)) return sendErrors(reply, 400, diagnostics);
      // A job moved to a destination that needs a challenge needs its token, as a new one does.
      const refusal = await ownershipRefusal(ctx.store, owner, value, Date.now(), stored.destination_conf);
      if (refusal) return sendErrors(reply, 400, [refusal]);
      const outcome = await ctx.store.updateJob(owner, id, (current) => ({ next: updateJob(current, value) }), { dryRun: dryRunOf(req) });
      if ('ok' in outcome) return sendResult(reply, outcome.ok, diagnostics);
      return notFound(reply, scope, id);
    });

    app.delete(`${base}/:job_id`, { schema: { tags, summary: 'Delete a Logpush job', params: jobParams(scope), querystring: dryRunQuery } }, async (req, reply) => {
      const id = jobId((req.params as Record<string, string>)['job_id']!, reply);
      if (id === undefined) return reply;
      const done = await ctx.store.deleteJob(ownerOf(req, scope), id, { dryRun: dryRunOf(req) });
      return done ? sendResult(reply, { id }) : notFound(reply, scope, id);
    });
  }
}
