/**
 * rulekit's languages as SQL, so they run where months of logs and flows are (DuckDB, ClickHouse): text
 * only, browser-safe. Running the SQL is the CLI's and the simulation side's business.
 * @module
 */
export { toSql, type ToSqlOptions, type ToSqlResult } from './to-sql.js';
export { logFilterToSql, type LogFilterSqlOptions, type SqlResult } from './logfilter.js';
export { expressionToSql, type ExpressionSqlOptions } from './expression.js';
export { rulesetToSql, rulesetSummarySql, summaryRuleFigures, type SummaryRuleFigures, type RulesetSqlOptions, type RulesetSqlResult, type RuleSql, type SummarySql, type SummarySqlOptions } from './ruleset.js';
export { flowFields, flowColumnType, flowColumnFromJson, flowColumnChecked, jsonFlowColumn, valueFlowColumn, checkedFlowColumn, ipTextColumn, keyedAddresses } from './flows.js';
export { IPV4_PATTERN, IPV6_PATTERN } from './ip.js';
export { sqlString, sqlIdentifier, sqlInt, jsonMemberPath, hasLoneSurrogate, sqlDouble } from './quote.js';
export { SQL_DIALECTS, DIALECTS, dialectOf, type SqlDialect } from './dialects/index.js';
export type { CanonicalJsonSql, Dialect, JsonValueSql, SourceSql, FlowColumnTypes } from './dialect.js';
export { SQL_CODES } from './codes.js';
export { logpushRequestsSql, requestCheckColumn, type LogpushRequestsSql, type LogpushRequestsSqlOptions } from './requests.js';
