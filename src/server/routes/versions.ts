/**
 * One version of a ruleset, at account and zone level: `GET …/rulesets/{id}/versions/{v}` reads it with
 * its rules, `DELETE` removes it from the history (204, as the service answers; never the current
 * version), and, at account level as the service has it, `GET …/versions/{v}/by_tag/{tag}` answers that
 * version with only the rules whose `categories` hold the tag (the rules of managed rulesets carry them;
 * a ruleset written through this server has none, so its answer lists no rules).
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError, sendResult } from '../envelope.js';
import type { Owner, StoredRuleset } from '../store/index.js';
import { dryRunOf, ownerOf, paramOf, SCOPES, versionOf, type RouteContext, type Scope } from './common.js';
import { dryRunQuery } from './schemas.js';
import { tagParams, versionParams } from './part-schemas.js';

export function versionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  /** The version the path names, or the 404 answered (no such ruleset, or no such version of it). */
  async function versionOrAnswer(req: FastifyRequest, reply: FastifyReply, scope: Scope, owner: Owner): Promise<StoredRuleset | undefined> {
    const id = paramOf(req, 'ruleset_id');
    const v = versionOf(req);
    const r = v === undefined ? undefined : await ctx.store.getRulesetVersion(owner, id, v);
    if (r) return r;
    await notFound(reply, scope, owner, id, paramOf(req, 'ruleset_version'));
    return undefined;
  }

  /** A ruleset that is not there, or a version of it that is not. */
  async function notFound(reply: FastifyReply, scope: Scope, owner: Owner, id: string, version: string): Promise<FastifyReply> {
    if (!(await ctx.store.getRuleset(owner, id))) return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
    return sendError(reply, 'server-version-not-found', `ruleset ${id} has no version ${JSON.stringify(version)}; GET …/rulesets/${id}/versions lists those it has`);
  }

  for (const scope of SCOPES) {
    const base = `/${scope.path}/:${scope.param}/rulesets/:ruleset_id/versions/:ruleset_version`;
    const tags = ['rulesets'];

    app.get(base, { schema: { tags, summary: 'Read one version of a ruleset, with its rules', params: versionParams(scope) } }, async (req, reply) => {
      const r = await versionOrAnswer(req, reply, scope, ownerOf(req, scope));
      return r ? sendResult(reply, r) : reply;
    });

    app.delete(base, { schema: { tags, summary: 'Delete one version of a ruleset (not its current one); 204', params: versionParams(scope), querystring: dryRunQuery } }, async (req, reply) => {
      const owner = ownerOf(req, scope);
      const id = paramOf(req, 'ruleset_id');
      const given = paramOf(req, 'ruleset_version');
      const dryRun = dryRunOf(req);
      const v = versionOf(req);
      const done = v === undefined ? 'no-version' : await ctx.store.deleteRulesetVersion(owner, id, v, { dryRun });
      if (done === 'no-ruleset') return sendError(reply, 'server-ruleset-not-found', `this ${scope.noun} has no ruleset ${id}`);
      if (done === 'no-version') return notFound(reply, scope, owner, id, given);
      if (done === 'current') return sendError(reply, 'server-current-version', `version ${given} is the current version of ruleset ${id}; PUT a new version first, or DELETE …/rulesets/${id} to delete the ruleset with all its versions`);
      return reply.code(204).send();
    });

    if (scope.scope !== 'account') continue;
    app.get(`${base}/by_tag/:rule_tag`, { schema: { tags, summary: 'Read one version of a ruleset with only the rules whose categories hold the tag', params: tagParams(scope) } }, async (req, reply) => {
      const r = await versionOrAnswer(req, reply, scope, ownerOf(req, scope));
      if (!r) return reply;
      const tag = paramOf(req, 'rule_tag');
      const tagged = (rule: object) => {
        const categories = (rule as { categories?: unknown }).categories;
        return Array.isArray(categories) && categories.includes(tag);
      };
      return sendResult(reply, { ...r, rules: r.rules.filter(tagged) });
    });
  }
}
