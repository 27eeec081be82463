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
   * The expressions that may name it: `network` (the packet fields: the network phases, service.md's
   * `$svc.anonymizer` …) and `http` (the HTTP phases, Rules-language schemes).
   */
  fieldSets: readonly ('network' | 'http')[];
  /** What the list holds, as the docs say. */
  doc: string;
}

/**
 * The managed lists, by name after the service token (`$svc.anonymizer`; Cloudflare writes the token `cf`).
 * The three of service.md are lists of both field sets; Open Proxies and VPNs are documented for the
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

/** A list's items as given by a caller: `{'svc.anonymizer': ['198.51.100.0/24'], 'my_list': [...]}`. */
export type ListItems = Readonly<Record<string, readonly string[]>>;

/** Lists built once: name → set, plus the problems found in their items. */
export class ListCatalog {
  /** Problems in the items, keyed by list name (reported where the list is used). */
  readonly problems: ReadonlyMap<string, Diagnostic[]>;
  private readonly sets: Map<string, IpSet>;

  private constructor(sets: Map<string, IpSet>, problems: Map<string, Diagnostic[]>) {
    this.sets = sets;
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
    for (const name of Object.keys(lists)) {
      const items = lists[name];
      const diags: Diagnostic[] = [];
      const managed = name.startsWith(`${token}.`);
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
    return new ListCatalog(sets, problems);
  }

  /** The set of a list, if the catalog has it. */
  get(name: string): IpSet | undefined {
    return this.sets.get(name);
  }

  /** Names of the lists in the catalog. */
  names(): IterableIterator<string> {
    return this.sets.keys();
  }
}
