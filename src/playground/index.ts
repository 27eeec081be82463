/**
 * The playground's CodeMirror package: the expression language (from the lexer's tokens), rulekit's
 * diagnostics as lint squiggles with quick fixes, completion and hover from `rulekit/language`, and the
 * page's state in a URL. `main.ts` is the page itself (the bundle's entry, built by
 * scripts/bundle-playground.mjs into dist/playground/).
 * @module
 */
export { expressionLanguage, rulekitHighlightStyle, rulekitHighlighting, styleSpans, styleOf, TOKEN_STYLES, STYLE_BY_TOKEN, STYLE_BY_CATEGORY, type TokenStyle, type StyledSpan } from './language.js';
export { rulekitLinter, recheck, requestRecheck, lintDiagnostics, toLintDiagnostic, fixAction, LINT_DELAY, type Placed } from './lint.js';
export { expressionAssist, logFilterAssist, rulesetAssist, expressionStringAt, toCompletionResult, hoverDom, signatureDom } from './assist.js';
export { encodeState, decodeState, mergeState, TABS, type PlaygroundState, type Tab } from './state.js';
export { defaultState } from './samples.js';
export { runExpression, runRuleset, runLogFilter, simulateCapture, rulesOf, packetOf, parseLists, placeInDocument, ruleAt, expressionViews, type RulesOutcome, type PacketOutcome, type LogpushOutcome, type LineOutcome, type CaptureOutcome, type ExpressionViews } from './run.js';
