/** The catalogs an expression is completed against: the scheme and the list names, resolved from the options. @module */
import { ListCatalog, managedListsFor, NETWORK_SCHEME, Scheme, type FieldDef } from '../expression/index.js';
import type { ExpressionLanguageOptions } from './types.js';

/** A list that can be named in an expression. */
export interface ListEntry {
  name: string;
  managed: boolean;
  /** Number of items, when the caller gave them as arrays. */
  items?: number;
}

/** What completion and hover read. */
export interface LanguageCatalogs {
  scheme: Scheme;
  fields: FieldDef[];
  lists: ListEntry[];
  serviceToken: string;
}

/** Resolve the options as `compileExpression` does; a malformed option is the default, never a throw. */
export function catalogsOf(options: ExpressionLanguageOptions | undefined): LanguageCatalogs {
  const o: ExpressionLanguageOptions = isObject(options) ? options : {};
  const serviceToken = typeof o.serviceToken === 'string' && o.serviceToken !== '' ? o.serviceToken : 'svc';
  let scheme = NETWORK_SCHEME;
  if (o.scheme instanceof Scheme) scheme = o.scheme;
  else if (isObject(o.scheme)) scheme = Scheme.fromLiteral(o.scheme).scheme;
  const lists: ListEntry[] = managedListsFor(scheme.rulesLanguage).map((n) => ({ name: `${serviceToken}.${n}`, managed: true }));
  const given = o.lists;
  if (given instanceof ListCatalog) {
    for (const name of given.names()) addList(lists, name, serviceToken, undefined);
  } else if (isObject(given)) {
    for (const [name, items] of Object.entries(given)) addList(lists, name, serviceToken, Array.isArray(items) ? items.length : undefined);
  }
  return { scheme, fields: scheme.fields(), lists, serviceToken };
}

function addList(lists: ListEntry[], name: string, token: string, items: number | undefined): void {
  const known = lists.find((l) => l.name === name);
  if (known) {
    known.items = items;
    return;
  }
  lists.push({ name, managed: name.startsWith(`${token}.`), items });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
