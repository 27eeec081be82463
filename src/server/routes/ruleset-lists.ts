/**
 * Which lists a ruleset's `$list`s are checked against, simulated and analysed with.
 *
 * Lists are account-level (the docs: "Cloudflare stores your lists at the account level"), so an account
 * ruleset is checked against its account's lists: the stored ones and the seeded ones. A zone ruleset
 * uses the lists of the zone's account on the service, but this server does not know which account a
 * zone belongs to (users own accounts and zones independently), so zone rulesets keep what they had
 * before the Lists API: the seeded lists when the server has some, else any name with a warning.
 * @module
 */
import type { Diagnostic } from '../../diagnostics/index.js';
import type { ListCatalog, ListItems } from '../../expression/index.js';
import type { ParsedBody } from '../body.js';
import type { Owner } from '../store/index.js';
import type { RouteContext } from './common.js';
import type { BuiltAccountLists } from '../account-lists.js';

/** The lists of one request. */
export interface RulesetLists {
  catalog?: ListCatalog;
  items?: ListItems;
  /** Added to the keys of validation memo entries: validations against other lists are other entries. */
  tag: string;
  /** The account's lists, when they are what the ruleset is checked against. */
  account?: BuiltAccountLists;
}

/**
 * The lists a ruleset of `owner` is checked against. A body that holds no `$` cannot name a list: it is
 * checked as before, without reading the store (the lists cannot change what it answers).
 */
export async function rulesetLists(ctx: RouteContext, owner: Owner, body?: ParsedBody): Promise<RulesetLists> {
  const seeded: RulesetLists = { catalog: ctx.catalog, items: ctx.lists, tag: '' };
  if (owner.scope !== 'accounts' || !ctx.accountLists) return seeded;
  if (body && !body.text.includes('$')) return seeded;
  const account = await ctx.accountLists.of(owner.id);
  return { catalog: account.catalog, items: account.items, tag: ` ${account.tag}`, account };
}

/** `unknown-list` errors with the names of the lists the account has, so the fix is in the message. */
export function withListNames(diagnostics: readonly Diagnostic[], lists: RulesetLists): Diagnostic[] {
  const account = lists.account;
  if (!account) return [...diagnostics];
  return diagnostics.map((d) => {
    if (d.code !== 'unknown-list' || d.severity !== 'error' || d.message.includes('not a managed list')) return d;
    const names = [...new Set([...account.stored.keys(), ...account.seeded])].sort();
    const have = names.length
      ? `the account's lists are ${names.slice(0, 20).map((n) => `$${n}${account.stored.has(n) ? ` (${account.stored.get(n)})` : ''}`).join(', ')}${names.length > 20 ? `, and ${names.length - 20} more` : ''}`
      : 'the account has no lists';
    return { ...d, message: `${d.message}; ${have} (create one with POST /accounts/{account_id}/rules/lists)`, data: { ...d.data, lists: names } };
  });
}
