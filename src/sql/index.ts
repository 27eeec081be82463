/**
 * rulekit's languages as SQL, so they run where months of logs are (DuckDB today): text only, browser-safe.
 * @module
 */
export { logFilterToSql, type LogFilterSqlOptions, type SqlResult } from './logfilter.js';
export { sqlString, sqlIdentifier, sqlInt, jsonMemberPath, hasLoneSurrogate, sqlDouble, SQL_DIALECTS, type SqlDialect } from './quote.js';
export { SQL_CODES } from './codes.js';
