/**
 * Phase entry points, at account and zone level: `…/rulesets/phases/{phase}/entrypoint` is the owner's
 * ruleset of kind `root` (account) or `zone` (zone) in that phase. GET reads it, PUT replaces its rules
 * (a new version) or, when there is none yet, creates it, as the service does (`name` and `description`
 * optional, `kind` and `phase` implied by the path); `…/entrypoint/versions` lists its versions (none
 * when there is no entry point, as the service answers) and `…/versions/{v}` reads one.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasErrors, type Diagnostic } from '../../diagnostics/index.js';
import { kindPhaseProblems, validateRuleset, type RulesetPhase } from '../../ruleset/index.js';
import { newRuleset, replaceRules, rulesetSummary, timestamp } from '../records.js';
import { sendBytes, sendError, sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import { validateBody } from '../body.js';
import type { Owner, StoredRuleset } from '../store/index.js';
import { rulesetLists, withListNames } from './ruleset-lists.js';
import { dryRunDiff } from '../dry-run-diff.js';
import { validatedOffThread, analysisWanted, analysisOf, bodyOf, dryRunOf, EnvelopeError, ownerOf, paramOf, SCOPES, versionOf, type RouteContext, type Scope } from './common.js';
import { dryRunQuery } from './schemas.js';
import { entryPointBodySchema, phaseParams, phaseVersionParams } from './part-schemas.js';

/** The name of an entry point a PUT creates without one (the service's are named when created in the dashboard). */
export const ENTRY_POINT_NAME = 'default';

/** The kind of the entry points of a level. */
const entryKind = (scope: Scope) => (scope.scope === 'account' ? 'root' : 'zone');

/** The phase the path names, when the catalog has it at this level; else the request is answered 400. */
function phaseOf(req: FastifyRequest, scope: Scope): string {
  const phase = paramOf(req, 'ruleset_phase');
  const problem = kindPhaseProblems(undefined, phase, scope.scope)[0];
  if (problem) throw EnvelopeError.of('server-unknown-phase', problem.message);
  return phase;
}

export function entryPointRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const noEntryPoint = (reply: FastifyReply, scope: Scope, owner: Owner, phase: string) =>
    sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no entry point ruleset in phase ${phase}; PUT /${scope.path}/${owner.id}/rulesets/phases/${phase}/entrypoint creates it`);

  for (const scope of SCOPES) {
    const base = `/${scope.path}/:${scope.param}/rulesets/phases/:ruleset_phase/entrypoint`;
    const tags = ['rulesets'];

    app.get(base, { schema: { tags, summary: `Read the ${scope.noun}'s entry point ruleset of a phase`, params: phaseParams(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const phase = phaseOf(req, scope);
      const id = await ctx.store.entryPointId(owner, phase);
      const r = id === undefined ? undefined : await ctx.store.getRuleset(owner, id);
      if (!r) return noEntryPoint(reply, scope, owner, phase);
      return ctx.answers ? sendBytes(reply, ctx.answers.of(r.record.id, r.json)) : sendResult(reply, r.record, [], 200, r.json);
    });

    app.put(base, { config: { memoBody: true }, schema: { tags, summary: `Replace the rules of the ${scope.noun}'s entry point ruleset of a phase (a new version), creating it when there is none`, params: phaseParams(scope), querystring: dryRunQuery, body: entryPointBodySchema(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const phase = phaseOf(req, scope);
      const dryRun = dryRunOf(req);
      const body = bodyOf(req);
      const now = timestamp();
      const lists = await rulesetLists(ctx, owner, body);
      const check = (input: unknown) => validateRuleset(input, { operation: 'update', scope: scope.scope, phase: phase as RulesetPhase, expression: { lists: lists.catalog }, ruleCache: ctx.rules });
      const diagnostics = await validatedOffThread(ctx, body.text, (t) => t.ruleset(body.text, { operation: 'update', scope: scope.scope, phase, lists: lists.items, listsTag: lists.tag }), () => validateBody(body, check));
      if (hasErrors(diagnostics)) return sendErrors(reply, 400, withListNames(diagnostics, lists));
      const given = body.value as Record<string, unknown>;
      const kind = entryKind(scope);
      // Twice at most: a create that loses the race to another create of the same entry point replaces that one's rules.
      for (let attempt = 0; attempt < 2; attempt++) {
        const id = await ctx.store.entryPointId(owner, phase);
        if (id !== undefined) {
          let before: StoredRuleset | undefined;
          const outcome = await ctx.store.updateRuleset<Diagnostic[]>(owner, id, (current) => ((before = current), replaceRules(current, given, now)), { dryRun });
          if ('notFound' in outcome) continue; // deleted meanwhile: created below
          if ('refused' in outcome) return sendErrors(reply, 400, [...outcome.refused, ...diagnostics]);
          const changes = dryRun && before && analysisWanted(ctx, req) ? dryRunDiff(before, outcome.ok.record, lists.items) : [];
          return sendResult(reply, outcome.ok.record, [...diagnostics, ...analysisOf(ctx, req, outcome.ok.record, dryRun, lists.items), ...changes], 200, outcome.ok.json);
        }
        const fixed = (['kind', 'phase'] as const).flatMap((m) => {
          const want = m === 'kind' ? kind : phase;
          return typeof given[m] === 'string' && given[m] !== want ? [serverDiagnostic('server-immutable-member', `the ${m} of an entry point is implied by its path: ${JSON.stringify(want)}, not ${JSON.stringify(given[m])}; leave "${m}" out`, `/${m}`)] : [];
        });
        if (fixed.length) return sendErrors(reply, 400, [...fixed, ...diagnostics]);
        const ruleset = newRuleset({ ...given, name: typeof given['name'] === 'string' ? given['name'] : ENTRY_POINT_NAME, kind, phase }, now);
        const outcome = await ctx.store.createRuleset(owner, ruleset, { dryRun });
        if ('phaseExists' in outcome) continue;
        return sendResult(reply, outcome.created.record, [...diagnostics, ...analysisOf(ctx, req, outcome.created.record, dryRun, lists.items)], 200, outcome.created.json);
      }
      // Created and deleted by others between each of our tries: rare enough to answer as a conflict.
      return sendError(reply, 'server-phase-exists', `the ${phase} entry point of this ${scope.noun} changed while it was written; try again`);
    });

    app.get(`${base}/versions`, { schema: { tags, summary: `List the versions of the ${scope.noun}'s entry point ruleset of a phase (none when it has none)`, params: phaseParams(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const phase = phaseOf(req, scope);
      const id = await ctx.store.entryPointId(owner, phase);
      return sendResult(reply, id === undefined ? [] : (await ctx.store.rulesetVersions(owner, id)).map(rulesetSummary));
    });

    app.get(`${base}/versions/:ruleset_version`, { schema: { tags, summary: `Read one version of the ${scope.noun}'s entry point ruleset of a phase`, params: phaseVersionParams(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const phase = phaseOf(req, scope);
      const id = await ctx.store.entryPointId(owner, phase);
      if (id === undefined) return noEntryPoint(reply, scope, owner, phase);
      const v = versionOf(req);
      const r = v === undefined ? undefined : await ctx.store.getRulesetVersion(owner, id, v);
      if (!r) return sendError(reply, 'server-version-not-found', `the ${phase} entry point (${id}) has no version ${JSON.stringify(paramOf(req, 'ruleset_version'))}; GET …/entrypoint/versions lists those it has`);
      return sendResult(reply, r);
    });
  }
}
