/**
 * The lists an account's expressions are checked against and simulated with: the lists the server was
 * seeded with (`ServerOptions.lists`, every account's) overlaid by the account's stored lists (Lists API),
 * a stored list taking the place of a seeded one of the same name.
 *
 * Built once per account and list revision into one {@link ListCatalog}: the validators' caches (the
 * rule cache, the validation memo) are kept per catalog, so a ruleset PUT again and again against lists
 * that did not change is checked as fast as before. The revision is read from the store for each use
 * (one indexed read), so a list written through another replica is seen at once.
 * @module
 */
import { ListCatalog, type ListItems } from '../expression/index.js';
import type { ListStore, StoredList } from './store/index.js';

/** What one account's lists were built into. */
export interface BuiltAccountLists {
  /** The lists as the simulator and analysis take them. */
  readonly items: ListItems;
  /** The same, built for the validators. */
  readonly catalog: ListCatalog;
  /** The stored lists' names and kinds (for messages), by name. */
  readonly stored: ReadonlyMap<string, StoredList['kind']>;
  /** The seeded lists' names. */
  readonly seeded: readonly string[];
  /** Tells this build from every other one of the server (for keys of caches). */
  readonly tag: string;
}

export class AccountLists {
  private readonly built = new Map<string, { revision: number; lists: BuiltAccountLists }>();
  private serial = 0;
  /** What the seeded lists alone build into, for accounts without stored lists. */
  private seededOnly?: BuiltAccountLists;

  constructor(private readonly store: ListStore, private readonly seeded: ListItems = {}, private readonly max = 256) {}

  /** The account's lists, built again only when its list revision moved. */
  async of(account: string): Promise<BuiltAccountLists> {
    const revision = await this.store.revision(account);
    if (revision === 0) return (this.seededOnly ??= this.build([]));
    const hit = this.built.get(account);
    if (hit && hit.revision === revision) {
      this.built.delete(account);
      this.built.set(account, hit);
      return hit.lists;
    }
    const lists = this.build(await this.store.listsWithItems(account));
    // A concurrent write may have moved the revision on while the items were read: keyed by the revision
    // read first, such a build is only ever used until the next read sees the newer one.
    this.built.delete(account);
    this.built.set(account, { revision, lists });
    if (this.built.size > this.max) this.built.delete(this.built.keys().next().value!);
    return lists;
  }

  private build(stored: readonly { list: StoredList; values: Record<string, unknown>[] }[]): BuiltAccountLists {
    const items: Record<string, ListItems[string]> = { ...this.seeded };
    for (const { list, values } of stored) {
      items[list.name] = list.kind === 'ip' ? { kind: 'ip', items: values.map((v) => v['ip']) } : { kind: list.kind, items: values };
    }
    return {
      items,
      catalog: ListCatalog.from(items),
      stored: new Map(stored.map(({ list }) => [list.name, list.kind])),
      seeded: Object.keys(this.seeded),
      tag: `lists#${++this.serial}`,
    };
  }
}
