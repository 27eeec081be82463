/**
 * What the Lists API accepts: the limits (one table), a list's body, and the items of each kind, read
 * into what the store keeps (`key`, `text`, `value`, see {@link ListItemInput}). Every refusal is a
 * diagnostic with the JSON pointer of the member at fault, and a fix where one is obvious.
 *
 * Sources: the docs' "Lists" pages under waf/tools/lists (names, kinds, the custom list formats, the
 * Enterprise quotas) and "URL redirect parameters" (rules/url-forwarding/bulk-redirects), and the
 * official client's types (`resources/rules/lists`).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { FAMILY_BITS, formatIpAddress, parseIpAddress, parseIpCidr, type IpAddress } from '../net/index.js';
import { serverDiagnostic } from './envelope.js';
import type { ListItemInput, ListWriteLimits, StoredListItem, StoredListKind } from './store/index.js';

/** The kinds of list, with what their items hold, in the docs' order. */
export const LIST_ITEM_KINDS: Readonly<Record<StoredListKind, { member: string; shape: string; search: 'prefix' | 'contains' | 'exact' }>> = {
  ip: { member: 'ip', shape: '{"ip": "192.0.2.1" or "192.0.2.0/24" or "2001:db8::/64", "comment"?}', search: 'prefix' },
  hostname: { member: 'hostname', shape: '{"hostname": {"url_hostname": "example.com" or "*.example.com", "exclude_exact_hostname"?}, "comment"?}', search: 'contains' },
  asn: { member: 'asn', shape: '{"asn": 13335, "comment"?}', search: 'exact' },
  redirect: { member: 'redirect', shape: '{"redirect": {"source_url", "target_url", "status_code"?, "include_subdomains"?, "subpath_matching"?, "preserve_query_string"?, "preserve_path_suffix"?}, "comment"?}', search: 'contains' },
};

export const LIST_KIND_VALUES = Object.keys(LIST_ITEM_KINDS) as StoredListKind[];

/**
 * The limits, the Enterprise quotas where the docs give them: 1,000 custom lists, 40 hostname and 40
 * ASN lists with 10,000 and 30,000 items across each kind; IP lists hold 10,000 items across them
 * (the figure the docs gave for every plan), Bulk Redirect lists 25 lists and 10,000 redirects.
 */
export const LIST_LIMITS = {
  maxLists: 1000,
  kinds: {
    ip: { maxLists: 1000, maxItems: 10_000 },
    hostname: { maxLists: 40, maxItems: 10_000 },
    asn: { maxLists: 40, maxItems: 30_000 },
    redirect: { maxLists: 25, maxItems: 10_000 },
  } satisfies Record<StoredListKind, { maxLists: number; maxItems: number }>,
  /** `^[a-z0-9_]+$`, at most 50 characters (the docs' "List names"). */
  nameMax: 50,
  descriptionMax: 500,
  commentMax: 500,
  /** Source and target URLs of a redirect: 32 KB each. */
  urlMax: 32 * 1024,
  /** Items per page of `GET …/items` (`per_page`). */
  perPageMax: 500,
  /** IPv4 CIDRs from /8 to /32, IPv6 CIDRs from /4 to /64 (the docs' "Lists with IP addresses"). */
  prefix: { 4: { min: 8, max: 32 }, 6: { min: 4, max: 64 } },
  redirectStatus: [301, 302, 307, 308],
} as const;

/** The limits a write to a list of `kind` is held to. */
export function limitsOf(kind: StoredListKind): ListWriteLimits {
  return { maxLists: LIST_LIMITS.maxLists, maxListsOfKind: LIST_LIMITS.kinds[kind].maxLists, maxItemsOfKind: LIST_LIMITS.kinds[kind].maxItems };
}

/**
 * A refused item member. A fix replaces the string at `pointer` (`given`) as a whole: its range is in
 * that value (`rangeIn: 'value'`), as the validators' fixes of expressions are.
 */
const invalid = (message: string, pointer: string, fix?: { given: string; value: string }): Diagnostic => {
  const d = serverDiagnostic('server-invalid-list-item', message, pointer);
  if (fix) {
    const range = { start: 0, end: fix.given.length };
    Object.assign(d, { range, rangeIn: 'value', fix: { title: `replace with ${fix.value}`, edits: [{ range, newText: fix.value }] } });
  }
  return d;
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** Why a list name is refused, or undefined. */
export function listNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `"name" must be a string, not ${typeName(name)}`;
  if (!name.length) return '"name" is empty';
  if (name.length > LIST_LIMITS.nameMax) return `"name" has ${name.length} characters; list names have at most ${LIST_LIMITS.nameMax}`;
  if (!/^[a-z0-9_]+$/.test(name)) {
    const lower = name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
    return `"name" ${JSON.stringify(name)} may hold only lower-case letters, digits and _ (^[a-z0-9_]+$); for example ${JSON.stringify(lower)}`;
  }
  return undefined;
}

/** Why a description is refused, or undefined. */
export function descriptionProblem(description: unknown): string | undefined {
  if (description === undefined) return undefined;
  if (typeof description !== 'string') return `"description" must be a string, not ${typeName(description)}`;
  if (description.length > LIST_LIMITS.descriptionMax) return `"description" has ${description.length} characters; at most ${LIST_LIMITS.descriptionMax}`;
  return undefined;
}

/** The items of a write (`POST`/`PUT …/items`: an array of items of the list's kind), or why not. */
export function readItems(kind: StoredListKind, body: unknown): { items: ListItemInput[] } | { errors: Diagnostic[] } {
  if (!Array.isArray(body)) return { errors: [invalid(`the body must be an array of ${kind} list items ${LIST_ITEM_KINDS[kind].shape}, not ${typeName(body)}`, '/')] };
  const errors: Diagnostic[] = [];
  // An item of a key given twice: the later one is kept, as an item of a key the list holds is replaced.
  const byKey = new Map<string, ListItemInput>();
  body.forEach((item, i) => {
    const read = readItem(kind, item, `/${i}`);
    if ('errors' in read) errors.push(...read.errors.slice(0, Math.max(0, 100 - errors.length)));
    else {
      byKey.delete(read.item.key);
      byKey.set(read.item.key, read.item);
    }
  });
  return errors.length ? { errors } : { items: [...byKey.values()] };
}

/** One item of a list of `kind` at `pointer`. */
export function readItem(kind: StoredListKind, item: unknown, pointer: string): { item: ListItemInput } | { errors: Diagnostic[] } {
  const shape = LIST_ITEM_KINDS[kind].shape;
  if (!isObject(item)) return { errors: [invalid(`item must be an object ${shape}, not ${typeName(item)}`, pointer)] };
  const member = LIST_ITEM_KINDS[kind].member;
  const errors: Diagnostic[] = [];
  for (const k of Object.keys(item)) {
    if (k === member || k === 'comment') continue;
    const other = LIST_KIND_VALUES.find((x) => LIST_ITEM_KINDS[x].member === k);
    errors.push(invalid(other ? `"${k}" is the member of ${other} list items; this is ${kind === 'asn' || kind === 'ip' ? 'an' : 'a'} ${kind} list, whose items are ${shape}` : `unknown member "${k}"; ${kind} list items are ${shape}`, `${pointer}/${escapePointer(k)}`));
  }
  const comment = item['comment'];
  if (comment !== undefined && typeof comment !== 'string') errors.push(invalid(`"comment" must be a string, not ${typeName(comment)}`, `${pointer}/comment`));
  else if (typeof comment === 'string' && comment.length > LIST_LIMITS.commentMax) errors.push(invalid(`"comment" has ${comment.length} characters; at most ${LIST_LIMITS.commentMax}`, `${pointer}/comment`));
  if (!(member in item)) {
    errors.push(invalid(`item has no "${member}"; ${kind} list items are ${shape}`, pointer));
    return { errors };
  }
  const read = READERS[kind](item[member], `${pointer}/${member}`);
  if ('errors' in read) return { errors: [...errors, ...read.errors] };
  if (errors.length) return { errors };
  const value: Record<string, unknown> = { [member]: read.value };
  if (typeof comment === 'string') value['comment'] = comment;
  return { item: { key: read.key, text: read.text, value } };
}

type Read = { value: unknown; key: string; text: string } | { errors: Diagnostic[] };

const READERS: Record<StoredListKind, (v: unknown, pointer: string) => Read> = {
  ip: readIp,
  asn: readAsn,
  hostname: readHostname,
  redirect: readRedirect,
};

/** Sort key of an address and prefix: family, the address's bytes in hex, the prefix, so keys sort by address then prefix. */
function ipKey(a: IpAddress, prefix: number): string {
  return `${a.family}${Buffer.from(a.bytes).toString('hex')}/${String(prefix).padStart(3, '0')}`;
}

function readIp(v: unknown, pointer: string): Read {
  if (typeof v !== 'string') return { errors: [invalid(`"ip" must be a string (an address or a CIDR), not ${typeName(v)}`, pointer)] };
  const text = v.toLowerCase();
  if (text.includes('/')) {
    const cidr = parseIpCidr(text);
    if (!cidr) return { errors: [invalid(`${JSON.stringify(v)} is not an IP address or CIDR`, pointer)] };
    const { min, max } = LIST_LIMITS.prefix[cidr.network.family];
    if (cidr.prefix < min || cidr.prefix > max) return { errors: [invalid(`${JSON.stringify(v)}: IPv${cidr.network.family} CIDRs in lists have a prefix from /${min} to /${max}`, pointer)] };
    if (cidr.hostBitsSet) {
      const fixed = `${formatIpAddress(cidr.network)}/${cidr.prefix}`;
      return { errors: [invalid(`${JSON.stringify(v)} has bits set past its /${cidr.prefix} prefix; the block is ${fixed}`, pointer, { given: v, value: fixed })] };
    }
    return { value: text, key: ipKey(cidr.network, cidr.prefix), text };
  }
  const a = parseIpAddress(text);
  if (!a) return { errors: [invalid(`${JSON.stringify(v)} is not an IP address or CIDR`, pointer)] };
  if (a.family === 6) {
    // The docs: an IPv6 host is given as its /64 (the last 64 bits identify the host, which can change them).
    const net = parseIpCidr(`${text}/64`)!;
    const fixed = `${formatIpAddress(net.network)}/64`;
    return { errors: [invalid(`${JSON.stringify(v)}: IPv6 addresses are listed as CIDRs of at most /64; give ${fixed}`, pointer, { given: v, value: fixed })] };
  }
  return { value: text, key: ipKey(a, FAMILY_BITS[4]), text };
}

function readAsn(v: unknown, pointer: string): Read {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) {
    return { errors: [invalid(`"asn" must be an integer from 0 to 4294967295, not ${JSON.stringify(v) ?? typeName(v)}`, pointer)] };
  }
  return { value: v, key: String(v).padStart(10, '0'), text: String(v) };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function readHostname(v: unknown, pointer: string): Read {
  if (!isObject(v)) return { errors: [invalid(`"hostname" must be an object {"url_hostname": "example.com"}, not ${typeName(v)}`, pointer)] };
  const errors: Diagnostic[] = [];
  for (const k of Object.keys(v)) if (k !== 'url_hostname' && k !== 'exclude_exact_hostname') errors.push(invalid(`unknown member "${k}" of a hostname; it has "url_hostname" and "exclude_exact_hostname"`, `${pointer}/${escapePointer(k)}`));
  const exclude = v['exclude_exact_hostname'];
  if (exclude !== undefined && typeof exclude !== 'boolean') errors.push(invalid(`"exclude_exact_hostname" must be true or false, not ${typeName(exclude)}`, `${pointer}/exclude_exact_hostname`));
  const host = v['url_hostname'];
  if (typeof host !== 'string') return { errors: [...errors, invalid(`"url_hostname" must be a string, not ${typeName(host)}`, `${pointer}/url_hostname`)] };
  const problem = hostnameProblem(host);
  if (problem) errors.push(invalid(problem, `${pointer}/url_hostname`));
  if (exclude !== undefined && !host.startsWith('*.')) errors.push(invalid('"exclude_exact_hostname" applies to wildcard hostnames (*.example.com) only', `${pointer}/exclude_exact_hostname`));
  if (errors.length) return { errors };
  const lower = host.toLowerCase();
  return { value: exclude === undefined ? { url_hostname: lower } : { url_hostname: lower, exclude_exact_hostname: exclude }, key: lower, text: lower };
}

/** Why a hostname is not a list item (an FQDN, optionally after `*.`, no scheme, port or path), or undefined. */
function hostnameProblem(host: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) return `${JSON.stringify(host)}: a hostname has no scheme; give ${JSON.stringify(host.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[/:?#].*$/, ''))}`;
  if (/[/:?#]/.test(host)) return `${JSON.stringify(host)}: a hostname has no port, path or query; give ${JSON.stringify(host.replace(/[/:?#].*$/, ''))}`;
  const name = host.toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
  if (host.length > 253 || !name.includes('.') || !name.split('.').every((l) => LABEL.test(l))) {
    return `${JSON.stringify(host)} is not a fully qualified hostname (labels of a-z, 0-9 and -, a * only as the whole first label)`;
  }
  return undefined;
}

const REDIRECT_DEFAULTS = { status_code: 301, include_subdomains: false, subpath_matching: false, preserve_query_string: false, preserve_path_suffix: true } as const;

function readRedirect(v: unknown, pointer: string): Read {
  if (!isObject(v)) return { errors: [invalid(`"redirect" must be an object {"source_url", "target_url", …}, not ${typeName(v)}`, pointer)] };
  const errors: Diagnostic[] = [];
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) if (k !== 'source_url' && k !== 'target_url' && !(k in REDIRECT_DEFAULTS)) errors.push(invalid(`unknown member "${k}" of a redirect; it has source_url, target_url, ${Object.keys(REDIRECT_DEFAULTS).join(', ')}`, `${pointer}/${escapePointer(k)}`));
  for (const k of ['source_url', 'target_url'] as const) {
    const url = v[k];
    if (typeof url !== 'string' || !url.length) errors.push(invalid(`"${k}" must be a non-empty string (a URL), not ${typeof url === 'string' ? 'empty' : typeName(url)}`, `${pointer}/${k}`));
    else if (url.length > LIST_LIMITS.urlMax) errors.push(invalid(`"${k}" has ${url.length} characters; at most ${LIST_LIMITS.urlMax}`, `${pointer}/${k}`));
    else out[k] = url;
  }
  const source = out['source_url'] as string | undefined;
  if (source !== undefined) {
    // The source is matched against the request's URL: an optional http(s) scheme, a host and a path only.
    const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#:@]+)(\/[^?#]*)?$/i.exec(source);
    if (!m) errors.push(invalid(`"source_url" ${JSON.stringify(source.slice(0, 80))} is not a host and path (an http or https scheme may come first; a port, user, query or fragment may not)`, `${pointer}/source_url`));
    else if (m[1] && !/^https?$/i.test(m[1])) errors.push(invalid(`"source_url": the scheme of a source is http or https (or none, for both), not ${m[1]}`, `${pointer}/source_url`));
  }
  const target = out['target_url'] as string | undefined;
  if (target !== undefined && !URL.canParse(target)) errors.push(invalid(`"target_url" ${JSON.stringify(target.slice(0, 80))} is not a URL (it needs a scheme, as https://example.com/path)`, `${pointer}/target_url`));
  const status = v['status_code'];
  if (status !== undefined && !(LIST_LIMITS.redirectStatus as readonly unknown[]).includes(status)) errors.push(invalid(`"status_code" is one of ${LIST_LIMITS.redirectStatus.join(', ')}, not ${JSON.stringify(status)}`, `${pointer}/status_code`));
  out['status_code'] = status ?? REDIRECT_DEFAULTS.status_code;
  for (const k of ['include_subdomains', 'subpath_matching', 'preserve_query_string', 'preserve_path_suffix'] as const) {
    const b = v[k];
    if (b !== undefined && typeof b !== 'boolean') errors.push(invalid(`"${k}" must be true or false, not ${typeName(b)}`, `${pointer}/${k}`));
    out[k] = b ?? REDIRECT_DEFAULTS[k];
  }
  if (out['preserve_query_string'] === true && target !== undefined && target.includes('?')) {
    errors.push(invalid('"target_url" has a query string while "preserve_query_string" is true: the request\'s query string would replace it; drop one of them', `${pointer}/target_url`));
  }
  if (errors.length) return { errors };
  return { value: out, key: source!, text: `${source}\n${target}` };
}

/** An item as the API answers it: `{id, <member>, comment?, created_on, modified_on}`. */
export function itemAnswer(item: StoredListItem): Record<string, unknown> {
  return { id: item.id, ...item.value, created_on: item.created_on, modified_on: item.modified_on };
}

/** A key as a page cursor, and back (cursors are opaque to clients). */
export const cursorOf = (key: string) => Buffer.from(key, 'utf8').toString('base64url');
export const keyOfCursor = (cursor: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  return cursorOf(key) === cursor ? key : undefined;
};

function escapePointer(k: string): string {
  return k.replace(/~/g, '~0').replace(/\//g, '~1');
}
