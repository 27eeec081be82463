/** Types of the Logpush dataset catalogs. @module */

/**
 * The documented type of a dataset field. `int_or_string` is the timestamp type (`int or string` in the
 * docs: an integer for `unix`/`unixnano`, a string for `rfc3339`); `array_string`/`array_int`/
 * `array_object` are `array[string]`/`array[int]`/`array[object]`.
 */
export type FieldType = 'string' | 'int' | 'bool' | 'float' | 'int_or_string' | 'array_string' | 'array_int' | 'array_object' | 'object';

/** Where a dataset's jobs live: `/zones/{zone_id}/logpush/jobs` or `/accounts/{account_id}/logpush/jobs`. */
export type DatasetScope = 'zone' | 'account';

/** One generated catalog row: `[name, type, description, deprecated?]`. */
export type FieldRow = readonly [name: string, type: FieldType, description: string, deprecated?: boolean];

/** One field of a dataset. */
export interface DatasetField {
  name: string;
  type: FieldType;
  description: string;
  deprecated: boolean;
}

/** The documentation page a table was read from, at a commit. */
export interface DocsSource {
  /** GitHub `owner/name` of the docs. */
  repo: string;
  /** The page's path in that repository. */
  path: string;
  /** The commit the page was read at. */
  revision: string;
  /** What else the table holds or lacks against the page, when anything. */
  note?: string;
}

/** A dataset's catalog: its fields in documented order and a name index. */
export interface Dataset {
  name: string;
  /** The scope whose jobs take it (a name in both scopes has one catalog per scope). */
  scope: DatasetScope;
  /** The docs page's title. */
  title: string;
  /** The docs page and revision the fields were read from. */
  source: DocsSource;
  fields: readonly DatasetField[];
  /** Field by exact name (a Map, so `__proto__` or `constructor` are never found by accident). */
  byName: ReadonlyMap<string, DatasetField>;
}
