/**
 * rulekit's languages as SQL, so they run where months of logs and flows are (DuckDB, ClickHouse): text
 * only, browser-safe. Running the SQL is the CLI's and the simulation side's business.
 * @module
 */
export { logFilterToSql, type LogFilterSqlOptions, type SqlResult } from './logfilter.js';
export { expressionToSql, type ExpressionSqlOptions } from './expression.js';
export { IPV4_PATTERN, IPV6_PATTERN } from './ip.js';
export { sqlString, sqlIdentifier, sqlInt, jsonMemberPath, hasLoneSurrogate, sqlDouble, SQL_DIALECTS, type SqlDialect } from './quote.js';
export { SQL_CODES } from './codes.js';
