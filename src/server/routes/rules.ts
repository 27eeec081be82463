/**
 * Single rules of a ruleset, at account and zone level: `POST …/rulesets/{id}/rules` adds one (at its
 * `position`, by default last), `PATCH …/rules/{rule_id}` edits one (the members given replace its own,
 * `position` moves it), `DELETE …/rules/{rule_id}` removes one. Each is a new version of the ruleset,
 * made as a PUT of all its rules would make it (rule-edits.ts, then `replaceRules`): the other rules keep
 * their ids, refs and versions. The whole ruleset is validated as a PUT is, and the diagnostics of the
 * request's rule point into the request's body (`/expression`). The answer is the whole ruleset.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasErrors, type Diagnostic } from '../../diagnostics/index.js';
import { validateRuleset, type RulesetPhase } from '../../ruleset/index.js';
import { replaceRules, timestamp } from '../records.js';
import { addRule, diagnosticsOfRule, editRule, positionOf, removeRule, type RuleList } from '../rule-edits.js';
import { sendError, sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import type { StoredRuleset } from '../store/index.js';
import { SERVER_CODES } from '../codes.js';
import { rulesetLists, withListNames, type RulesetLists } from './ruleset-lists.js';
import { dryRunDiff } from '../dry-run-diff.js';
import { analysisWanted, analysisOf, bodyOf, dryRunOf, ownerOf, paramOf, SCOPES, type RouteContext, type Scope } from './common.js';
import { dryRunQuery, rulesetParams } from './schemas.js';
import { ruleBodySchema, ruleParams } from './part-schemas.js';

/** A refusal inside the write: its diagnostics (the first one's code gives the status). */
type Refusal = Diagnostic[];

type Body = Readonly<Record<string, unknown>>;

export function ruleRoutes(app: FastifyInstance, ctx: RouteContext): void {
  /** The rules of a PUT, validated as the PUT's validator validates them, in the ruleset's phase. */
  const validateRules = (scope: Scope, current: StoredRuleset, rules: readonly Record<string, unknown>[], lists: RulesetLists) =>
    withListNames(validateRuleset({ rules }, { operation: 'update', scope: scope.scope, phase: current.phase as RulesetPhase, expression: { lists: lists.catalog }, ruleCache: ctx.rules }), lists);

  /**
   * Write the ruleset made of the rules `edit` computes from the stored one, inside the store's update;
   * answer the whole ruleset, or the refusal with its status.
   */
  async function write(req: FastifyRequest, reply: FastifyReply, scope: Scope, edit: (current: StoredRuleset) => { rules: Record<string, unknown>[]; index?: number } | { refused: Refusal }) {
    const owner = ownerOf(req, scope);
    const id = paramOf(req, 'ruleset_id');
    const dryRun = dryRunOf(req);
    const now = timestamp();
    // Lists are read before the store's update: its change function runs inside a transaction.
    const lists = await rulesetLists(ctx, owner);
    let messages: Diagnostic[] = [];
    let before: StoredRuleset | undefined;
    const outcome = await ctx.store.updateRuleset<Refusal>(owner, id, (current) => {
      before = current;
      const edited = edit(current);
      if ('refused' in edited) return edited;
      if (edited.index !== undefined) {
        messages = diagnosticsOfRule(validateRules(scope, current, edited.rules, lists), edited.index, edited.rules);
        if (hasErrors(messages)) return { refused: messages };
      }
      return replaceRules(current, { rules: edited.rules }, now);
    }, { dryRun });
    if ('notFound' in outcome) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
    if ('refused' in outcome) return sendErrors(reply, SERVER_CODES[outcome.refused[0]?.code as keyof typeof SERVER_CODES]?.status ?? 400, outcome.refused);
    const changes = dryRun && before && analysisWanted(ctx, req) ? dryRunDiff(before, outcome.ok.record, lists.items, false) : [];
    return sendResult(reply, outcome.ok.record, [...messages, ...analysisOf(ctx, req, outcome.ok.record, dryRun, lists.items), ...changes], 200, outcome.ok.json);
  }

  /** The request's body as one rule (an object); else the refusal. */
  const objectBody = (req: FastifyRequest): Body | Refusal => {
    const value = bodyOf(req).value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [serverDiagnostic('server-invalid-parameter', 'the body must be one rule, a JSON object {"action", "expression", …, "position"}', '')];
    return value as Body;
  };

  const ruleNotFound = (current: StoredRuleset, ruleId: string): Refusal => [serverDiagnostic('server-rule-not-found', `ruleset ${current.id} has no rule ${ruleId}; GET the ruleset for the ids of its rules`)];

  /** A rule list, or the problem with the position that made it. */
  const listed = (made: RuleList | { problem: Diagnostic }): RuleList | { refused: Refusal } => ('problem' in made ? { refused: [made.problem] } : made);

  for (const scope of SCOPES) {
    const base = `/${scope.path}/:${scope.param}/rulesets/:ruleset_id/rules`;
    const tags = ['rulesets'];

    app.post(base, { schema: { tags, summary: 'Add one rule to a ruleset (at its `position`, by default last); the version moves up', params: rulesetParams(scope), querystring: dryRunQuery, body: ruleBodySchema('create') } }, async (req, reply) => {
      const body = objectBody(req);
      if (Array.isArray(body)) return sendErrors(reply, 400, body);
      const at = positionOf(body);
      if ('problem' in at) return sendErrors(reply, 400, [at.problem]);
      return write(req, reply, scope, (current) => listed(addRule(current, body, at.position)));
    });

    app.patch(`${base}/:rule_id`, { schema: { tags, summary: 'Edit one rule of a ruleset: the members given replace its own, `position` moves it; the version moves up', params: ruleParams(scope), querystring: dryRunQuery, body: ruleBodySchema('edit') } }, async (req, reply) => {
      const ruleId = paramOf(req, 'rule_id');
      const body = objectBody(req);
      if (Array.isArray(body)) return sendErrors(reply, 400, body);
      const at = positionOf(body);
      if ('problem' in at) return sendErrors(reply, 400, [at.problem]);
      return write(req, reply, scope, (current) => {
        const made = editRule(current, ruleId, body, at.position);
        return made ? listed(made) : { refused: ruleNotFound(current, ruleId) };
      });
    });

    app.delete(`${base}/:rule_id`, { schema: { tags, summary: 'Delete one rule of a ruleset; the version moves up', params: ruleParams(scope), querystring: dryRunQuery } }, async (req, reply) => {
      const ruleId = paramOf(req, 'rule_id');
      return write(req, reply, scope, (current) => {
        const rules = removeRule(current, ruleId);
        return rules ? { rules } : { refused: ruleNotFound(current, ruleId) };
      });
    });
  }
}
