/**
 * The Lists API (`/accounts/{account_id}/rules/lists`), as the official client calls it: lists of kind
 * ip, hostname, asn and redirect; their items, written in bulk and answered with an `operation_id`;
 * the status of those bulk operations. The service applies item writes asynchronously; this server
 * applies them at once and records the operation (`completed`, or `failed` with its reason and nothing
 * changed), so `GET …/bulk_operations/{id}` answers its final state on the first ask.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseExpression, referencedLists } from '../../expression/index.js';
import type { Diagnostic } from '../../diagnostics/index.js';
import type { ItemsWrite, StoredList, StoredListKind } from '../store/index.js';
import { randomId as newListId } from '../store/index.js';
import { timestamp } from '../records.js';
import { sendError, sendErrors, sendResult, serverDiagnostic } from '../envelope.js';
import { bodyOf, dryRunOf, EnvelopeError, type RouteContext } from './common.js';
import { cursorOf, descriptionProblem, itemAnswer, keyOfCursor, LIST_ITEM_KINDS, LIST_KIND_VALUES, LIST_LIMITS, limitsOf, listNameProblem, readItems } from '../list-items.js';

const id = { type: 'string', minLength: 1, maxLength: 64, description: 'An id (32 hex digits).' } as const;
const accountParams = { type: 'object', properties: { account_id: id }, required: ['account_id'] } as const;
const listParams = { type: 'object', properties: { account_id: id, list_id: id }, required: ['account_id', 'list_id'] } as const;
const itemParams = { type: 'object', properties: { account_id: id, list_id: id, item_id: id }, required: ['account_id', 'list_id', 'item_id'] } as const;
const operationParams = { type: 'object', properties: { account_id: id, operation_id: id }, required: ['account_id', 'operation_id'] } as const;
const dryRunQuery = { type: 'object', properties: { dry_run: { type: 'string', enum: ['true', 'false'], description: 'Validate and answer as if written, storing nothing.' } } } as const;
const description = { type: 'string', maxLength: LIST_LIMITS.descriptionMax };
const listCreateBody = {
  type: 'object',
  properties: { name: { type: 'string', pattern: '^[a-z0-9_]+$', maxLength: LIST_LIMITS.nameMax }, kind: { type: 'string', enum: LIST_KIND_VALUES }, description },
  required: ['name', 'kind'],
  additionalProperties: false,
} as const;
const listUpdateBody = { type: 'object', properties: { description }, additionalProperties: false } as const;
const comment = { type: 'string', maxLength: LIST_LIMITS.commentMax };
const itemsBody = {
  type: 'array',
  description: 'Items of the list’s kind.',
  items: {
    oneOf: [
      { type: 'object', properties: { ip: { type: 'string' }, comment }, required: ['ip'], additionalProperties: false },
      { type: 'object', properties: { asn: { type: 'integer', minimum: 0, maximum: 4294967295 }, comment }, required: ['asn'], additionalProperties: false },
      { type: 'object', properties: { hostname: { type: 'object', properties: { url_hostname: { type: 'string' }, exclude_exact_hostname: { type: 'boolean' } }, required: ['url_hostname'], additionalProperties: false }, comment }, required: ['hostname'], additionalProperties: false },
      {
        type: 'object',
        properties: {
          redirect: {
            type: 'object',
            properties: {
              source_url: { type: 'string', maxLength: LIST_LIMITS.urlMax },
              target_url: { type: 'string', maxLength: LIST_LIMITS.urlMax },
              status_code: { type: 'integer', enum: LIST_LIMITS.redirectStatus, default: 301 },
              include_subdomains: { type: 'boolean', default: false },
              subpath_matching: { type: 'boolean', default: false },
              preserve_query_string: { type: 'boolean', default: false },
              preserve_path_suffix: { type: 'boolean', default: true },
            },
            required: ['source_url', 'target_url'],
            additionalProperties: false,
          },
          comment,
        },
        required: ['redirect'],
        additionalProperties: false,
      },
    ],
  },
} as const;
const itemsDeleteBody = { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { id }, required: ['id'] } } } } as const;
const itemsQuery = {
  type: 'object',
  properties: {
    cursor: { type: 'string', description: 'The `result_info.cursors.after` (or `before`) of the page before.' },
    per_page: { type: 'string', pattern: '^[1-9][0-9]*$', description: `Items per page, 1 to ${LIST_LIMITS.perPageMax} (default: all).` },
    search: { type: 'string', description: 'IP lists: items that start with it; hostname and redirect lists: items that hold it; ASN lists: the ASN.' },
  },
} as const;

const tags = ['lists'];

/** The rules of an account's rulesets that name each list, by list name. */
class ListReferences {
  /** Lists named by each ruleset version (parsing every expression again for each list read is wasted). */
  private readonly byVersion = new Map<string, Map<string, string[]>>();

  async of(ctx: RouteContext, account: string): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const ruleset of await ctx.store.listRulesets({ scope: 'accounts', id: account })) {
      const key = `${ruleset.id}@${ruleset.version}`;
      let named = this.byVersion.get(key);
      if (!named) {
        named = new Map();
        for (const rule of ruleset.rules) {
          const ast = parseExpression(rule.expression).ast;
          if (!ast) continue;
          for (const name of referencedLists(ast)) named.set(name, [...(named.get(name) ?? []), `rule ${rule.id} of ruleset ${ruleset.id} (${ruleset.name})`]);
        }
        this.byVersion.set(key, named);
        if (this.byVersion.size > 4096) this.byVersion.delete(this.byVersion.keys().next().value!);
      }
      for (const [name, where] of named) out.set(name, [...(out.get(name) ?? []), ...where]);
    }
    return out;
  }
}

export function listRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const references = new ListReferences();
  const base = '/accounts/:account_id/rules/lists';
  const account = (req: FastifyRequest) => (req.params as Record<string, string>)['account_id']!;
  const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name]!;
  const answer = (list: StoredList, refs: Map<string, string[]>) => ({
    id: list.id,
    name: list.name,
    description: list.description,
    kind: list.kind,
    num_items: list.num_items,
    // The service counts the filters (Firewall Rules) naming the list; this server has rules only: it counts those.
    num_referencing_filters: refs.get(list.name)?.length ?? 0,
    created_on: list.created_on,
    modified_on: list.modified_on,
  });
  const listNotFound = (reply: FastifyReply, listId: string) => sendError(reply, 'server-list-not-found', `this account has no list ${listId}`);
  const invalidList = (message: string, pointer: string) => serverDiagnostic('server-invalid-list', message, pointer);

  /** The request's body as an object, or the answer that refuses it. */
  function objectBody(req: FastifyRequest, code: 'server-invalid-list' | 'server-invalid-list-item', what: string): Record<string, unknown> {
    const value = bodyOf(req).value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EnvelopeError(400, [serverDiagnostic(code, `the body must be an object ${what}`, '/')]);
    return value as Record<string, unknown>;
  }

  app.get(base, { schema: { tags, summary: 'List the account’s lists (without their items)', params: accountParams } }, async (req, reply) => {
    const a = account(req);
    const [lists, refs] = await Promise.all([ctx.store.lists.listLists(a), references.of(ctx, a)]);
    return sendResult(reply, lists.map((l) => answer(l, refs)));
  });

  app.post(base, { schema: { tags, summary: 'Create an (empty) list of a kind', params: accountParams, querystring: dryRunQuery, body: listCreateBody } }, async (req, reply) => {
    const a = account(req);
    const dryRun = dryRunOf(req);
    const body = objectBody(req, 'server-invalid-list', '{"name", "kind", "description"?}');
    const errors: Diagnostic[] = [];
    for (const k of Object.keys(body)) if (!['name', 'kind', 'description'].includes(k)) errors.push(invalidList(`unknown member "${k}"; a list has "name", "kind" and "description"`, `/${k}`));
    const nameProblem = listNameProblem(body['name']);
    if (nameProblem) errors.push(invalidList(nameProblem, '/name'));
    const kind = body['kind'];
    if (typeof kind !== 'string' || !(LIST_KIND_VALUES as string[]).includes(kind)) errors.push(invalidList(`"kind" is one of ${LIST_KIND_VALUES.join(', ')}, not ${JSON.stringify(kind) ?? 'missing'}`, '/kind'));
    const descProblem = descriptionProblem(body['description']);
    if (descProblem) errors.push(invalidList(descProblem, '/description'));
    if (errors.length) return sendErrors(reply, 400, errors);
    const now = timestamp();
    const list = { id: newListId(), name: body['name'] as string, description: (body['description'] as string | undefined) ?? '', kind: kind as StoredListKind, created_on: now, modified_on: now };
    const outcome = await ctx.store.lists.createList(a, list, limitsOf(list.kind), { dryRun });
    if ('nameExists' in outcome) return sendError(reply, 'server-list-name-exists', `the account already has a list named ${list.name} (${outcome.nameExists}); pick another name, or add items to that one`, '/name');
    if ('limit' in outcome) return sendError(reply, 'server-list-limit-reached', `${outcome.limit}; delete a list first`, '/kind');
    return sendResult(reply, answer(outcome.created, new Map()));
  });

  app.get(`${base}/bulk_operations/:operation_id`, { schema: { tags, summary: 'The status of a bulk operation on list items', params: operationParams } }, async (req, reply) => {
    const operationId = param(req, 'operation_id');
    const op = await ctx.store.lists.getOperation(account(req), operationId);
    if (!op) return sendError(reply, 'server-bulk-operation-not-found', `this account has no bulk operation ${operationId}`);
    return sendResult(reply, op);
  });

  app.get(`${base}/:list_id`, { schema: { tags, summary: 'Read a list (without its items)', params: listParams } }, async (req, reply) => {
    const a = account(req);
    const listId = param(req, 'list_id');
    const list = await ctx.store.lists.getList(a, listId);
    if (!list) return listNotFound(reply, listId);
    return sendResult(reply, answer(list, await references.of(ctx, a)));
  });

  app.put(`${base}/:list_id`, { schema: { tags, summary: 'Change the description of a list (its name and kind are fixed)', params: listParams, querystring: dryRunQuery, body: listUpdateBody } }, async (req, reply) => {
    const a = account(req);
    const listId = param(req, 'list_id');
    const dryRun = dryRunOf(req);
    const body = objectBody(req, 'server-invalid-list', '{"description"}');
    const current = await ctx.store.lists.getList(a, listId);
    if (!current) return listNotFound(reply, listId);
    const errors: Diagnostic[] = [];
    for (const k of Object.keys(body)) {
      if (k === 'description') continue;
      if ((k === 'name' || k === 'kind') && body[k] !== current[k]) errors.push(serverDiagnostic('server-immutable-member', `a list's ${k} cannot change (it is ${JSON.stringify(current[k])}); create a new list instead`, `/${k}`));
      else if (k !== 'name' && k !== 'kind') errors.push(invalidList(`unknown member "${k}"; a list update takes "description"`, `/${k}`));
    }
    const descProblem = descriptionProblem(body['description']);
    if (descProblem) errors.push(invalidList(descProblem, '/description'));
    if (errors.length) return sendErrors(reply, 400, errors);
    const updated = await ctx.store.lists.updateList(a, listId, (body['description'] as string | undefined) ?? current.description, timestamp(), { dryRun });
    if (!updated) return listNotFound(reply, listId);
    return sendResult(reply, answer(updated, await references.of(ctx, a)));
  });

  app.delete(`${base}/:list_id`, { schema: { tags, summary: 'Delete a list and its items (refused while rules name it)', params: listParams, querystring: dryRunQuery } }, async (req, reply) => {
    const a = account(req);
    const listId = param(req, 'list_id');
    const dryRun = dryRunOf(req);
    const list = await ctx.store.lists.getList(a, listId);
    if (!list) return listNotFound(reply, listId);
    const users = (await references.of(ctx, a)).get(list.name) ?? [];
    if (users.length) {
      return sendError(reply, 'server-list-in-use', `$${list.name} is named by ${users.length} rule${users.length === 1 ? '' : 's'} (${users.slice(0, 5).join('; ')}${users.length > 5 ? '; …' : ''}); a list can be deleted only when no rule names it`);
    }
    if (!(await ctx.store.lists.deleteList(a, listId, { dryRun }))) return listNotFound(reply, listId);
    return sendResult(reply, { id: listId });
  });

  app.get(`${base}/:list_id/items`, { schema: { tags, summary: 'List the items of a list, in order (cursor pagination)', params: listParams, querystring: itemsQuery } }, async (req, reply) => {
    const a = account(req);
    const listId = param(req, 'list_id');
    const query = (req.query ?? {}) as Record<string, unknown>;
    let limit: number | undefined;
    if (query['per_page'] !== undefined) {
      const n = Number(query['per_page']);
      if (typeof query['per_page'] !== 'string' || !/^[0-9]+$/.test(query['per_page']) || n < 1 || n > LIST_LIMITS.perPageMax) {
        return sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', `per_page is an integer from 1 to ${LIST_LIMITS.perPageMax}, not ${JSON.stringify(query['per_page'])}`)]);
      }
      limit = n;
    }
    let after: string | undefined;
    let before: string | undefined;
    if (query['cursor'] !== undefined) {
      const raw = typeof query['cursor'] === 'string' ? keyOfCursor(query['cursor']) : undefined;
      if (!raw || !/^[ab]:/.test(raw)) return sendErrors(reply, 400, [serverDiagnostic('server-invalid-parameter', 'cursor is not one this server gave (take result_info.cursors.after or before of the page before)')]);
      if (raw.startsWith('a:')) after = raw.slice(2);
      else before = raw.slice(2);
    }
    const list = await ctx.store.lists.getList(a, listId);
    if (!list) return listNotFound(reply, listId);
    const search = typeof query['search'] === 'string' && query['search'] !== '' ? { text: list.kind === 'redirect' ? query['search'] : query['search'].toLowerCase(), match: LIST_ITEM_KINDS[list.kind].search } : undefined;
    const page = await ctx.store.lists.listItems(a, listId, { after, before, limit, search });
    if (!page) return listNotFound(reply, listId);
    const cursors: Record<string, string> = {};
    if (page.after !== undefined) cursors['after'] = cursorOf(`a:${page.after}`);
    if (page.before !== undefined) cursors['before'] = cursorOf(`b:${page.before}`);
    reply.code(200).type('application/json; charset=utf-8');
    return reply.send({ result: page.items.map(itemAnswer), result_info: { cursors }, success: true, errors: [], messages: [] });
  });

  app.get(`${base}/:list_id/items/:item_id`, { schema: { tags, summary: 'Read one item of a list', params: itemParams } }, async (req, reply) => {
    const a = account(req);
    const listId = param(req, 'list_id');
    const itemId = param(req, 'item_id');
    const item = await ctx.store.lists.getItem(a, listId, itemId);
    if (item) return sendResult(reply, itemAnswer(item));
    if (!(await ctx.store.lists.getList(a, listId))) return listNotFound(reply, listId);
    return sendError(reply, 'server-list-item-not-found', `list ${listId} has no item ${itemId}`);
  });

  /** A bulk write of items: read and checked here, applied by the store, answered with its operation id. */
  async function writeItems(req: FastifyRequest, reply: FastifyReply, mode: 'append' | 'replace' | 'delete'): Promise<FastifyReply> {
    const a = account(req);
    const listId = param(req, 'list_id');
    const dryRun = dryRunOf(req);
    const list = await ctx.store.lists.getList(a, listId);
    if (!list) return listNotFound(reply, listId);
    let write: ItemsWrite;
    if (mode === 'delete') {
      const body = req.body === undefined ? {} : objectBody(req, 'server-invalid-list-item', '{"items": [{"id"}]}');
      const items = body['items'] ?? [];
      if (!Array.isArray(items)) return sendErrors(reply, 400, [serverDiagnostic('server-invalid-list-item', '"items" must be an array of {"id": …}', '/items')]);
      const errors: Diagnostic[] = [];
      const ids: string[] = [];
      items.forEach((it, i) => {
        const itemId = it !== null && typeof it === 'object' ? (it as Record<string, unknown>)['id'] : undefined;
        if (typeof itemId !== 'string' || !itemId) errors.push(serverDiagnostic('server-invalid-list-item', 'an item to delete is {"id": "<the item\'s id>"}', `/items/${i}`));
        else ids.push(itemId);
      });
      if (errors.length) return sendErrors(reply, 400, errors);
      write = { mode, ids: [...new Set(ids)] };
    } else {
      // More items than the account may hold of the kind in all: refused by their count, before each is read.
      const given = bodyOf(req).value;
      const most = limitsOf(list.kind).maxItemsOfKind;
      if (Array.isArray(given) && given.length > most) {
        return sendError(reply, 'server-list-limit-reached', `${given.length} items in one request; an account holds at most ${most} items in its ${list.kind} lists (the items were not checked)`);
      }
      const read = readItems(list.kind, given);
      if ('errors' in read) return sendErrors(reply, 400, read.errors);
      write = { mode, items: read.items };
    }
    const op = await ctx.store.lists.writeItems(a, listId, write, { id: newListId(), now: timestamp() }, limitsOf(list.kind), { dryRun });
    if (!op) return listNotFound(reply, listId);
    return sendResult(reply, { operation_id: op.id });
  }

  const writeSchema = (summary: string, body: object) => ({ schema: { tags, summary, params: listParams, querystring: dryRunQuery, body } });
  app.post(`${base}/:list_id/items`, writeSchema('Add items to a list (an item already in it is replaced); answers the bulk operation id', itemsBody), (req, reply) => writeItems(req, reply, 'append'));
  app.put(`${base}/:list_id/items`, writeSchema('Replace all the items of a list; answers the bulk operation id', itemsBody), (req, reply) => writeItems(req, reply, 'replace'));
  app.delete(`${base}/:list_id/items`, writeSchema('Delete items of a list by id; answers the bulk operation id', itemsDeleteBody), (req, reply) => writeItems(req, reply, 'delete'));
}
