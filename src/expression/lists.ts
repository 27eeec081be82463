/**
 * List catalogs: the managed `$svc.*` lists and account lists, each an array of IPs, CIDRs and ranges,
 * built once into {@link IpSet}s so that many rules (and many compilations) share them.
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { IpSet } from '../net/index.js';
import { expressionDiagnostic } from './diagnostics.js';

/** Where {@link MANAGED_LIST_CATALOG}'s HTTP lists come from. */
export const MANAGED_LISTS_SOURCE = Object.freeze({
  repo: 'cloudflare/cloudflare-docs',
  path: 'src/content/partials/waf/managed-lists.mdx',
  revision: '2678ac4c8e0abda808477ea82dbdb67182020649',
});

/** One managed list: what it holds and which expressions may name it. */
export interface ManagedListInfo {
  /** Items are IP addresses, CIDRs and ranges (every managed list is an IP list). */
  type: 'ip';
  /**
   * The expressions that may name it: `network` (the packet fields: the network phases, the
   * `$svc.anonymizer` …) and `http` (the HTTP phases, Rules-language schemes).
   */
  fieldSets: readonly ('network' | 'http')[];
  /** What the list holds, as the docs say. */
  doc: string;
}

/**
 * The managed lists, by name after the service token (`$svc.anonymizer`; Cloudflare writes the token `cf`).
 * The three of the network rules (docs/expressions.md) are lists of both field sets; Open Proxies and VPNs are documented for the
 * HTTP phases only ({@link MANAGED_LISTS_SOURCE}, "Managed IP Lists"). Their items are never built in:
 * a caller gives them, as for account lists, or membership is false.
 */
export const MANAGED_LIST_CATALOG: Readonly<Record<string, ManagedListInfo>> = {
  anonymizer: { type: 'ip', fieldSets: ['network', 'http'], doc: 'Known anonymizers (open SOCKS proxies, VPNs, Tor nodes).' },
  botnetcc: { type: 'ip', fieldSets: ['network', 'http'], doc: 'Known botnet command-and-control servers.' },
  malware: { type: 'ip', fieldSets: ['network', 'http'], doc: 'Known sources of malware.' },
  open_proxies: { type: 'ip', fieldSets: ['http'], doc: 'Known open HTTP and SOCKS proxy endpoints.' },
  vpn: { type: 'ip', fieldSets: ['http'], doc: 'Known VPN servers.' },
};

/** Names of the managed lists after the service token (`$svc.anonymizer`), of every field set. */
export const MANAGED_LISTS: readonly string[] = Object.keys(MANAGED_LIST_CATALOG);

/** The managed lists an expression may name: those of the HTTP phases for a Rules-language scheme, else the network ones. */
export function managedListsFor(rulesLanguage: boolean): string[] {
  const set = rulesLanguage ? 'http' : 'network';
  return MANAGED_LISTS.filter((n) => MANAGED_LIST_CATALOG[n]!.fieldSets.includes(set));
}
/** Longest account list name. */
export const MAX_LIST_NAME = 50;

/** The kinds of list the service has (the Lists API's `kind`). */
export type ListKind = 'ip' | 'asn' | 'hostname' | 'redirect';

/**
 * What each kind of list holds and the fields an expression may test against it with `in`: the table the
 * checker, the lists option's reader and the docs read. IP lists go with every IP field; the others
 * with one field each (the docs' "Custom lists" table; redirect lists are Bulk Redirects' source URLs).
 */
export const LIST_KINDS: Readonly<Record<ListKind, { title: string; items: string; fields: 'Ip' | readonly string[]; phase?: string }>> = {
  ip: { title: 'IP', items: 'IP addresses, CIDRs and ranges', fields: 'Ip' },
  asn: { title: 'ASN', items: 'autonomous system numbers', fields: ['ip.src.asnum'] },
  hostname: { title: 'hostname', items: 'hostnames (a leading *. matches every subdomain)', fields: ['http.host'] },
  redirect: { title: 'redirect', items: 'redirects from a source URL', fields: ['http.request.full_uri'], phase: 'http_request_redirect' },
};

/** The list kinds, in the order the docs give them. */
export const LIST_KIND_NAMES = Object.keys(LIST_KINDS) as ListKind[];

/**
 * A list's items as given by a caller: a bare array is an IP list (`{'svc.anonymizer': ['198.51.100.0/24']}`);
 * other kinds say so (`{'hosts': {kind: 'hostname', items: ['*.example.com']}}`). A redirect item is a
 * source URL or the Lists API's `{source_url, include_subdomains?, subpath_matching?}` (or `{redirect: {…}}`).
 */
export type ListItems = Readonly<Record<string, readonly unknown[] | { readonly kind: ListKind; readonly items: readonly unknown[] }>>;

/** Membership of a string in a hostname or redirect list. */
export interface StringList {
  has(value: string): boolean;
}

/** A built list of any kind. */
export type BuiltList =
  | { kind: 'ip'; set: IpSet }
  | { kind: 'asn'; values: readonly number[] }
  | { kind: 'hostname' | 'redirect'; set: StringList };

/** Hostnames as the service matches them: exact names and `*.` subdomain wildcards, without regard to case. */
export class HostnameSet implements StringList {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];
  constructor(items: readonly string[]) {
    for (const i of items) {
      const h = i.toLowerCase();
      if (h.startsWith('*.')) this.suffixes.push(h.slice(1));
      else this.exact.add(h);
    }
  }
  has(value: string): boolean {
    const h = value.toLowerCase();
    if (this.exact.has(h)) return true;
    for (const s of this.suffixes) if (h.length > s.length && h.endsWith(s)) return true;
    return false;
  }
}

/** A Bulk Redirects source, as the Lists API keeps it. */
interface RedirectSource {
  host: string;
  path: string;
  query?: string;
  includeSubdomains: boolean;
  subpathMatching: boolean;
}

/**
 * The source URLs of a redirect list. A request's full URI matches a source when host and path are the
 * same (the scheme is not compared unless the source gives one; a source's query string must then be
 * the request's), or with `include_subdomains` a subdomain of its host, or with `subpath_matching` a
 * path below its path.
 */
export class RedirectSet implements StringList {
  constructor(private readonly sources: readonly (RedirectSource & { scheme?: string })[]) {}
  has(value: string): boolean {
    const u = splitUrl(value);
    if (!u) return false;
    for (const s of this.sources) {
      if (s.scheme && s.scheme !== u.scheme) continue;
      if (!(u.host === s.host || (s.includeSubdomains && u.host.endsWith(`.${s.host}`)))) continue;
      const path = u.path;
      if (!(path === s.path || (s.subpathMatching && path.startsWith(s.path.endsWith('/') ? s.path : `${s.path}/`)))) continue;
      if (s.query !== undefined && s.query !== u.query) continue;
      return true;
    }
    return false;
  }
}

/** `scheme://host/path?query` (scheme optional) into lower-case scheme and host, path (`/` when empty) and query. */
function splitUrl(url: string): { scheme?: string; host: string; path: string; query?: string } | undefined {
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):\/\/)?([^/?#]+)([^?#]*)(?:\?([^#]*))?/.exec(url.trim());
  if (!m) return undefined;
  return { scheme: m[1]?.toLowerCase(), host: m[2]!.toLowerCase(), path: m[3] || '/', query: m[4] };
}

/** Lists built once: name → built list, plus the problems found in their items. */
export class ListCatalog {
  /** Problems in the items, keyed by list name (reported where the list is used). */
  readonly problems: ReadonlyMap<string, Diagnostic[]>;
  private readonly sets: Map<string, IpSet>;
  private readonly others: Map<string, BuiltList>;

  private constructor(sets: Map<string, IpSet>, others: Map<string, BuiltList>, problems: Map<string, Diagnostic[]>) {
    this.sets = sets;
    this.others = others;
    this.problems = problems;
  }

  /**
   * Build a catalog. Items that are not addresses/CIDRs/ranges are reported and left out; IPv6 items of
   * account lists get a warning (account IP lists are IPv4-only in the public service).
   */
  static from(lists: ListItems, options: { serviceToken?: string } = {}): ListCatalog {
    const token = options.serviceToken ?? 'svc';
    const sets = new Map<string, IpSet>();
    const problems = new Map<string, Diagnostic[]>();
    const others = new Map<string, BuiltList>();
    for (const name of Object.keys(lists)) {
      const given = lists[name];
      const diags: Diagnostic[] = [];
      const managed = name.startsWith(`${token}.`) || name.startsWith('cf.');
      const typed = given !== null && typeof given === 'object' && !Array.isArray(given) ? (given as { kind?: unknown; items?: unknown }) : undefined;
      if (typed && typed.kind !== 'ip') {
        const built = buildOther(name, typed.kind, typed.items, diags);
        if (built) others.set(name, built);
        if (diags.length) problems.set(name, diags);
        continue;
      }
      const items = typed ? typed.items : given;
      if (!Array.isArray(items)) {
        diags.push(expressionDiagnostic('invalid-list-item', `list $${name} must be an array of IP addresses, CIDRs or ranges`, { start: 0, end: 0 }));
        sets.set(name, IpSet.fromRanges([]));
      } else {
        // IpSet.fromItems reads plain addresses and CIDRs with the hand-written scanner (100k CIDRs in ~50 ms).
        // A non-string item reads as '' (an invalid item) without String(): a nested array or a BigInt-free
        // object could recurse or throw there.
        const built = IpSet.fromItems(items.map((it) => (typeof it === 'string' ? it.trim() : typeof it === 'number' ? String(it) : '')));
        for (const e of built.errors.slice(0, 20)) {
          const reason = typeof items[e.index] === 'string' ? e.reason : 'it is not a string';
          diags.push(
            expressionDiagnostic('invalid-list-item', `item ${e.index} of list $${name} (${typeof items[e.index] === 'string' ? JSON.stringify(String(e.item).slice(0, 60)) : Array.isArray(items[e.index]) ? 'an array' : typeof items[e.index]}) is left out: ${reason}`, { start: 0, end: 0 }, {
              data: { list: name, index: e.index },
            }),
          );
        }
        if (!managed && built.firstV6Index >= 0) {
          diags.push(
            expressionDiagnostic('ipv6-in-account-list', `list $${name} holds IPv6 items (first: item ${built.firstV6Index}); account IP lists are IPv4-only in the public service`, { start: 0, end: 0 }, {
              data: { list: name, index: built.firstV6Index },
            }),
          );
        }
        sets.set(name, built.set);
      }
      if (diags.length) problems.set(name, diags);
    }
    return new ListCatalog(sets, others, problems);
  }

  /** The set of an IP list, if the catalog has it. */
  get(name: string): IpSet | undefined {
    return this.sets.get(name);
  }

  /** A list of any kind, if the catalog has it. */
  entry(name: string): BuiltList | undefined {
    const set = this.sets.get(name);
    return set ? { kind: 'ip', set } : this.others.get(name);
  }

  /** Names of the lists in the catalog. */
  names(): IterableIterator<string> {
    return [...this.sets.keys(), ...this.others.keys()][Symbol.iterator]();
  }
}

/** An ASN, hostname or redirect list from its items; what is not an item of its kind is reported and left out. */
function buildOther(name: string, kind: unknown, items: unknown, diags: Diagnostic[]): BuiltList | undefined {
  const bad = (index: number, item: unknown, why: string) => {
    if (diags.length < 20) {
      diags.push(expressionDiagnostic('invalid-list-item', `item ${index} of list $${name} (${JSON.stringify(item)?.slice(0, 60) ?? String(item)}) is left out: ${why}`, { start: 0, end: 0 }, { data: { list: name, index } }));
    }
  };
  if (typeof kind !== 'string' || !Object.hasOwn(LIST_KINDS, kind)) {
    diags.push(expressionDiagnostic('invalid-list-item', `list $${name} has kind ${JSON.stringify(kind)}; a list's kind is ${LIST_KIND_NAMES.join(', ')}`, { start: 0, end: 0 }, { data: { list: name } }));
    return undefined;
  }
  const list = Array.isArray(items) ? items : [];
  if (!Array.isArray(items)) diags.push(expressionDiagnostic('invalid-list-item', `list $${name} must have an "items" array of ${LIST_KINDS[kind as ListKind].items}`, { start: 0, end: 0 }, { data: { list: name } }));
  switch (kind as ListKind) {
    case 'asn': {
      const values: number[] = [];
      list.forEach((item, i) => {
        const n = typeof item === 'number' ? item : typeof item === 'string' && /^\d+$/.test(item.trim()) ? Number(item.trim()) : typeof item === 'object' && item !== null && typeof (item as { asn?: unknown }).asn === 'number' ? (item as { asn: number }).asn : NaN;
        if (Number.isInteger(n) && n >= 0 && n <= 0xffffffff) values.push(n);
        else bad(i, item, 'an ASN is an integer from 0 to 4294967295');
      });
      return { kind: 'asn', values: [...new Set(values)].sort((a, b) => a - b) };
    }
    case 'hostname': {
      const hosts: string[] = [];
      list.forEach((item, i) => {
        const h = typeof item === 'string' ? item.trim() : typeof item === 'object' && item !== null && typeof (item as { hostname?: { url_hostname?: unknown } }).hostname?.url_hostname === 'string' ? (item as { hostname: { url_hostname: string } }).hostname.url_hostname : undefined;
        if (h !== undefined && /^(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$/.test(h)) hosts.push(h);
        else bad(i, item, 'a hostname list holds hostnames (a leading *. matches subdomains), without scheme or path');
      });
      return { kind: 'hostname', set: new HostnameSet(hosts) };
    }
    default: {
      const sources: (RedirectSource & { scheme?: string })[] = [];
      list.forEach((item, i) => {
        const r = typeof item === 'object' && item !== null ? ((item as { redirect?: unknown }).redirect ?? item) as Record<string, unknown> : undefined;
        const url = typeof item === 'string' ? item : typeof r?.['source_url'] === 'string' ? (r['source_url'] as string) : undefined;
        const u = url === undefined ? undefined : splitUrl(url);
        if (!u) return bad(i, item, 'a redirect list holds {"source_url": "example.com/path", "target_url": …} items');
        sources.push({ ...u, includeSubdomains: r?.['include_subdomains'] === true, subpathMatching: r?.['subpath_matching'] === true });
      });
      return { kind: 'redirect', set: new RedirectSet(sources) };
    }
  }
}
