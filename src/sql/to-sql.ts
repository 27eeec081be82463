/**
 * One entry for every input rulekit compiles to SQL: a Logpush filter, a network expression or a
 * ruleset, told apart by shape (a filter is a JSON object with `where`, a ruleset one with `rules`;
 * anything else given as text is an expression).
 * @module
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { CheckedExpression, ListCatalog, ListItems } from '../expression/index.js';
import type { LogFilter } from '../logpush/index.js';
import type { Rule, Ruleset } from '../ruleset/index.js';
import { expressionToSql } from './expression.js';
import { logFilterToSql } from './logfilter.js';
import { rulesetToSql, type RuleSql } from './ruleset.js';
import type { SqlDialect } from './dialects/index.js';

/** Options of {@link toSql}. */
export interface ToSqlOptions {
  dialect?: SqlDialect;
  /**
   * Column of each field when not named by the field. For a Logpush filter, `columns` turns on column
   * mode (`true`: columns named by the fields); without it the filter reads the JSON column `column`.
   */
  columns?: true | Readonly<Record<string, string>>;
  /** Logpush JSON mode: the column holding each line (default `line`). */
  column?: string;
  /** Logpush: the dataset of a filter given as text (default `http_requests`). */
  dataset?: string;
  /** Lists of a network expression or ruleset, by name without `$`. */
  lists?: ListItems | ListCatalog;
  serviceToken?: string;
}

/** What {@link toSql} returns. Values reach the SQL as literals of the dialect's one quoting function, so `params` is never needed. */
export interface ToSqlResult {
  kind: 'filter' | 'expression' | 'ruleset';
  /** A boolean expression (filter, expression) or the deciding rule's index, −1 for none (ruleset). */
  sql?: string;
  params?: Record<string, unknown>;
  /** Ruleset: `'block'`/`'allow'` per row. */
  verdict?: string;
  /** Ruleset: the rules taking part, each with its match expression. */
  rules?: RuleSql[];
  diagnostics: Diagnostic[];
}

type Input = string | LogFilter | CheckedExpression | Ruleset | { rules: readonly Rule[] };

function kindOf(input: Input): { kind: ToSqlResult['kind']; value: unknown } {
  if (typeof input === 'string') {
    if (input.trimStart().startsWith('{')) {
      try {
        const v = JSON.parse(input) as Record<string, unknown>;
        if (v && typeof v === 'object' && 'rules' in v) return { kind: 'ruleset', value: v };
      } catch {
        // not JSON: the filter check reports where
      }
      return { kind: 'filter', value: input };
    }
    return { kind: 'expression', value: input };
  }
  if (input && typeof input === 'object' && 'rules' in input) return { kind: 'ruleset', value: input };
  if (input && typeof input === 'object' && 'where' in input) return { kind: 'filter', value: input };
  return { kind: 'expression', value: input };
}

/**
 * A Logpush filter, network expression or ruleset as SQL for DuckDB or ClickHouse.
 *
 * ```ts
 * toSql('tcp.dstport in {80 443}', { dialect: 'clickhouse' }).sql;
 * toSql('{"where":{"key":"ClientCountry","operator":"eq","value":"us"}}', { columns: true }).sql;
 * toSql({ rules: [{ action: 'block', expression: 'ip.src in $bad' }] }, { lists: { bad: ['192.0.2.0/24'] } }).sql;
 * ```
 */
export function toSql(input: Input, options: ToSqlOptions = {}): ToSqlResult {
  const { kind, value } = kindOf(input);
  const columns = options.columns === true ? undefined : options.columns;
  if (kind === 'filter') return { kind, ...logFilterToSql(value as string | LogFilter, { dialect: options.dialect, column: options.column, columns: options.columns, dataset: options.dataset }) };
  if (kind === 'ruleset') return { kind, ...rulesetToSql(value as Ruleset, { dialect: options.dialect, columns, lists: options.lists, serviceToken: options.serviceToken }) };
  return { kind, ...expressionToSql(value as string | CheckedExpression, { dialect: options.dialect, columns, lists: options.lists, serviceToken: options.serviceToken }) };
}
