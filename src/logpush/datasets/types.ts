/** Types of the Logpush dataset catalogs. @module */

/**
 * The documented type of a dataset field. `int_or_string` is the timestamp type (`int or string` in the
 * docs: an integer for `unix`/`unixnano`, a string for `rfc3339`); `array_string`/`array_int` are
 * `array[string]`/`array[int]`.
 */
export type FieldType = 'string' | 'int' | 'bool' | 'float' | 'int_or_string' | 'array_string' | 'array_int' | 'object';

/** One generated catalog row: `[name, type, description, deprecated?]`. */
export type FieldRow = readonly [name: string, type: FieldType, description: string, deprecated?: boolean];

/** One field of a dataset. */
export interface DatasetField {
  name: string;
  type: FieldType;
  description: string;
  deprecated: boolean;
}

/** A dataset's catalog: its fields in documented order and a name index. */
export interface Dataset {
  name: string;
  fields: readonly DatasetField[];
  /** Field by exact name (a Map, so `__proto__` or `constructor` are never found by accident). */
  byName: ReadonlyMap<string, DatasetField>;
}
