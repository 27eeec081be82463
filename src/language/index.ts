/**
 * Completion, hover and signature help for network rule expressions and Logpush filters, on
 * `(text, offset)`: protocol-free and browser-safe, read from the same catalogs the checkers read
 * (the field scheme, the operator tables, the function table, the dataset catalogs). The language server
 * (`rulekit lsp`) and the playground are adapters over these functions.
 * @module rulekit/language
 */
export type {
  CompletionKind, CompletionItem, CompletionResult, Hover, SignatureHelp, ExpressionLanguageOptions, LogFilterLanguageOptions,
} from './types.js';
export { completeExpression, hoverExpression, signatureHelpExpression } from './expression.js';
export { completeLogFilter, hoverLogFilter } from './logfilter.js';
