/**
 * List catalogs: the managed `$svc.*` lists and account lists, each an array of IPs, CIDRs and ranges,
 * built once into {@link IpSet}s so that many rules (and many compilations) share them.
 * @module
 */
import type { Diagnostic } from '../diagnostics/types.js';
import { IpSet, parseIpItem } from '../net/index.js';
import { expressionDiagnostic } from './diagnostics.js';

/** Names of the managed lists after the service token (`$svc.anonymizer`). */
export const MANAGED_LISTS: readonly string[] = ['anonymizer', 'botnetcc', 'malware'];
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
      const ranges = [];
      const managed = name.startsWith(`${token}.`);
      if (!Array.isArray(items)) {
        diags.push(expressionDiagnostic('invalid-list-item', `list $${name} must be an array of IP addresses, CIDRs or ranges`, { start: 0, end: 0 }));
      } else {
        let v6Warned = false;
        for (let i = 0; i < items.length; i++) {
          const item = items[i];
          const parsed = typeof item === 'string' ? parseIpItem(item.trim()) : { ok: false as const, reason: 'it is not a string' };
          if (!parsed.ok) {
            if (diags.length < 20) {
              diags.push(
                expressionDiagnostic('invalid-list-item', `item ${i} of list $${name} (${JSON.stringify(String(item).slice(0, 60))}) is left out: ${parsed.reason}`, { start: 0, end: 0 }, {
                  data: { list: name, index: i },
                }),
              );
            }
            continue;
          }
          if (!managed && parsed.range.first.family === 6 && !v6Warned) {
            v6Warned = true;
            diags.push(
              expressionDiagnostic('ipv6-in-account-list', `list $${name} holds IPv6 items (first: item ${i}); account IP lists are IPv4-only in the public service`, { start: 0, end: 0 }, {
                data: { list: name, index: i },
              }),
            );
          }
          ranges.push(parsed.range);
        }
      }
      sets.set(name, IpSet.fromRanges(ranges));
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
