/**
 * Ruleset routes, at account and zone level: list, create, read, replace (PUT), delete, versions, and
 * rulekit's own simulate. Bodies are validated by `validateRuleset`; the store persists what
 * records.ts computes.
 * @module
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { analyzeRuleset } from '../../analysis/index.js';
import type { StoredRuleset } from '../store/index.js';
import { hasErrors, type Diagnostic } from '../../diagnostics/index.js';
import { phaseInfo, validateRuleset, type Ruleset } from '../../ruleset/index.js';
import { simulate } from '../../engine/index.js';
import type { ListItems } from '../../expression/index.js';
import { newRuleset, replaceRules, rulesetSummary, timestamp } from '../records.js';
import { dryRunDiff } from '../dry-run-diff.js';
import { sendBytes, sendError, sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import { analysisWanted, analysisOf, validatedOffThread, bodyOf, dryRunOf, MAX_SIMULATED_PACKETS, ownerOf, SCOPES, type RouteContext } from './common.js';
import { validateBody, Validation, type ParsedBody } from '../body.js';
import { rulesetLists, withListNames, type RulesetLists } from './ruleset-lists.js';
import { rulesetBodySchema, rulesetParams, scopeParams, dryRunQuery, simulateBodySchema } from './schemas.js';

export function rulesetRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const validated = (body: ParsedBody, kind: string, validate: (input: unknown) => Diagnostic[]) =>
    ctx.validations ? ctx.validations.validate(body, kind, validate) : validateBody(body, validate);
  /** The same as a {@link Validation}: its diagnostics shared, with the text of their messages. */
  const validation = (body: ParsedBody, kind: string, validate: (input: unknown) => Diagnostic[]): Validation =>
    ctx.validations ? ctx.validations.validation(body, kind, validate) : new Validation(validateBody(body, validate));

  for (const scope of SCOPES) {
    const base = `/${scope.path}/:${scope.param}/rulesets`;
    const tags = ['rulesets'];

    app.get(base, { schema: { tags, summary: `List the ${scope.noun}'s rulesets (without their rules)`, params: scopeParams(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      return sendResult(reply, (await ctx.store.listRulesets(owner)).map(rulesetSummary));
    });

    app.post(base, { config: { memoBody: true }, schema: { tags, summary: `Create a ${scope.noun} ruleset`, params: scopeParams(scope), querystring: dryRunQuery, body: rulesetBodySchema(scope, 'create') } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const dryRun = dryRunOf(req);
      const body = bodyOf(req);
      const lists = await rulesetLists(ctx, owner, body);
      const diagnostics = await validatedOffThread(ctx, body.text,
        (t) => t.ruleset(body.text, { operation: 'create', scope: scope.scope, lists: lists.items, listsTag: lists.tag }),
        () => validated(body, `create ${scope.scope}${lists.tag}`, (input) => validateRuleset(input, { operation: 'create', scope: scope.scope, expression: { lists: lists.catalog }, ruleCache: ctx.rules })));
      if (hasErrors(diagnostics)) return sendErrors(reply, 400, withListNames(diagnostics, lists));
      const ruleset = newRuleset(body.value as Record<string, unknown>, timestamp());
      diagnostics.push(...analysisOf(ctx, req, ruleset, dryRun, lists.items));
      const outcome = await ctx.store.createRuleset(owner, ruleset, { dryRun });
      if ('phaseExists' in outcome) {
        return sendError(reply, 'server-phase-exists', `this ${scope.noun} already has its ${ruleset.phase} ruleset (${outcome.phaseExists}); there is one per phase: PUT /${scope.path}/${owner.id}/rulesets/${outcome.phaseExists} to change its rules`, '/phase');
      }
      return sendResult(reply, outcome.created.record, diagnostics, 200, outcome.created.json);
    });

    app.get(`${base}/:ruleset_id`, { schema: { tags, summary: 'Read a ruleset', params: rulesetParams(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = (req.params as Record<string, string>)['ruleset_id']!;
      const r = await ctx.store.getRuleset(owner, id);
      if (!r) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
      return ctx.answers ? sendBytes(reply, ctx.answers.of(id, r.json)) : sendResult(reply, r.record, [], 200, r.json);
    });

    app.get(`${base}/:ruleset_id/versions`, { schema: { tags, summary: 'List the stored versions of a ruleset, oldest first', params: rulesetParams(scope) } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = (req.params as Record<string, string>)['ruleset_id']!;
      const versions = await ctx.store.rulesetVersions(owner, id);
      if (!versions.length) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
      return sendResult(reply, versions.map(rulesetSummary));
    });

    app.put(`${base}/:ruleset_id`, { config: { memoBody: true }, schema: { tags, summary: 'Replace the rules (and name, description) of a ruleset; the version moves up', params: rulesetParams(scope), querystring: dryRunQuery, body: rulesetBodySchema(scope, 'update') } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = (req.params as Record<string, string>)['ruleset_id']!;
      const dryRun = dryRunOf(req);
      const body = bodyOf(req);
      const lists = await rulesetLists(ctx, owner, body);
      const now = timestamp();
      // Validated inside the update, against the stored phase it reads: one read of the record, not two.
      // A large body is validated off the thread first, against the phase read before the update; the
      // update takes that answer when the phase it reads is the same (it always is: phases do not change).
      let offThread: { phase: string; diagnostics: Diagnostic[] } | undefined;
      if (ctx.offThread?.takes(body.text)) {
        const stored = await ctx.store.getRuleset(owner, id);
        const phase = stored?.record.phase;
        if (phase !== undefined) {
          const here = () => validateBody(body, (input) => validateRuleset(input, { operation: 'update', scope: scope.scope, phase: phase as 'network_transit', expression: { lists: lists.catalog } }));
          offThread = { phase, diagnostics: await validatedOffThread(ctx, body.text, (t) => t.ruleset(body.text, { operation: 'update', scope: scope.scope, phase, lists: lists.items, listsTag: lists.tag }), here) };
        }
      }
      let checked = new Validation([]);
      // The version the write replaces: a dry run answers what the write changes in traffic against it.
      let before: StoredRuleset | undefined;
      const outcome = await ctx.store.updateRuleset<Diagnostic[]>(owner, id, (current) => {
        before = current;
        checked = offThread?.phase === current.phase ? new Validation(offThread.diagnostics) : validation(body, `update ${scope.scope} ${current.phase}${lists.tag}`, (input) => validateRuleset(input, { operation: 'update', scope: scope.scope, phase: current.phase as 'network_transit', expression: { lists: lists.catalog }, ruleCache: ctx.rules }));
        if (hasErrors(checked.diagnostics)) return { refused: [...checked.diagnostics] };
        const next = replaceRules(current, body.value as Record<string, unknown>, now);
        return 'refused' in next ? { refused: [...next.refused, ...checked.diagnostics] } : next;
      }, { dryRun });
      if ('notFound' in outcome) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
      if ('refused' in outcome) return sendErrors(reply, 400, withListNames(outcome.refused, lists));
      const analysis = analysisOf(ctx, req, outcome.ok.record, dryRun, lists.items);
      if (dryRun && before && analysisWanted(ctx, req)) analysis.push(...dryRunDiff(before, outcome.ok.record, lists.items));
      // Without findings of analysis, the messages are the validation's: their text as written before.
      if (!analysis.length) return sendResult(reply, outcome.ok.record, checked.diagnostics, 200, outcome.ok.json, checked.messagesJson);
      return sendResult(reply, outcome.ok.record, [...checked.diagnostics, ...analysis], 200, outcome.ok.json);
    });

    app.delete(`${base}/:ruleset_id`, { schema: { tags, summary: 'Delete a ruleset and all its versions', params: rulesetParams(scope), querystring: dryRunQuery } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = (req.params as Record<string, string>)['ruleset_id']!;
      const done = await ctx.store.deleteRuleset(owner, id, { dryRun: dryRunOf(req) });
      if (!done) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
      // As the service (deleteAccountRuleset, deleteZoneRuleset): 204 without a body, dry run or not.
      return reply.code(204).send();
    });

    app.post(`${base}/:ruleset_id/simulate`, {
      schema: {
        tags: ['rulekit'],
        summary: 'rulekit’s own: run packets through the stored ruleset and answer each packet’s verdict and the per-rule summary',
        params: rulesetParams(scope),
        body: simulateBodySchema,
      },
    }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = (req.params as Record<string, string>)['ruleset_id']!;
      const body = bodyOf(req).value;
      const stored = await ctx.store.getRuleset(owner, id);
      if (!stored) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
      if (stored.record.phase !== 'network_transit') return sendError(reply, 'server-not-simulable', `ruleset ${id} is in phase ${stored.record.phase}; only network_transit rulesets decide on packets`);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', 'the body must be an object {"packets": [...]}', '')]);
      const { packets, lists, results } = body as Record<string, unknown>;
      if (!Array.isArray(packets)) return sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', '"packets" must be an array of packet objects', '/packets')]);
      if (packets.length > MAX_SIMULATED_PACKETS) return sendError(reply, 'server-too-many-packets', `${packets.length} packets in one request; at most ${MAX_SIMULATED_PACKETS} are simulated per request`, '/packets');
      if (lists !== undefined && (lists === null || typeof lists !== 'object' || Array.isArray(lists))) {
        return sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', '"lists" must be an object of list name to array of addresses or CIDRs', '/lists')]);
      }
      if (results !== undefined && typeof results !== 'boolean') return sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', '"results" must be true or false', '/results')]);
      // The account's lists (stored and seeded; a zone's: the seeded ones), and over them the body's.
      const known = await rulesetLists(ctx, owner);
      const sim = simulate(stored.record as unknown as Ruleset, packets, { lists: { ...(known.items ?? {}), ...((lists as ListItems | undefined) ?? {}) } });
      if (hasErrors(sim.diagnostics)) return sendErrors(reply, 400, sim.diagnostics);
      return sendResult(reply, results === false ? { summary: sim.summary } : { summary: sim.summary, results: sim.results }, sim.diagnostics);
    });
  }
}
