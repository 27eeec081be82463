/** Diagnostic codes of ruleset analysis. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the analysis, each with its default severity and meaning. */
export const ANALYSIS_CODES = {
  'rule-unreachable': { severity: 'warning', doc: 'An enabled rule that can never decide: earlier terminating rules (the catalog’s terminating actions — block, challenge, js_challenge, managed_challenge, redirect, serve_error… — and skips of the current ruleset; not rate limiting or exposed credentials rules) with another action decide every packet or request it matches. The finding names them and gives a witness.' },
  'rule-redundant': { severity: 'warning', doc: 'An enabled rule that earlier rules with the same action fully cover: removing it changes no verdict. The finding names them and gives a witness packet.' },
  'rule-never-matches': { severity: 'warning', doc: 'A rule whose expression no packet satisfies (contradicting conditions, or TCP and UDP fields on one packet).' },
  'expression-never-true': { severity: 'warning', doc: 'A part of an expression that no packet satisfies, named at its smallest (e.g. `ip.src in {10.0.0.0/8} and ip.src in {192.168.0.0/16}`).' },
  'expression-always-true': { severity: 'info', doc: 'A part of an expression that every packet satisfies: it does not narrow what the rule matches.' },
  'rule-skip-overlap': { severity: 'info', doc: 'A skip that lets through packets or requests a later terminating rule (block, challenge, redirect…) would decide (what a skip is for: worth a look when the skip is wider than meant). Names that rule and a witness; at most three per skip.' },
  'rule-not-analysed': { severity: 'info', doc: 'A rule the shadowing analysis leaves out because it reads functions (`lower()`), indexing (`[ ]`, `[*]`) or `any()`/`all()`, which its field domains do not hold: it gets no finding and decides nothing for the rules after it (which can only hide a finding about them). The message names what it reads.' },
  'analysis-stopped': { severity: 'info', doc: 'The analysis ran out of the time it was given (the server gives the analysis of a write 50 ms, so that one large ruleset does not hold every other request) and left the rules from the one named on unanalysed: they get no finding. `rulekit analyze` analyses every rule.' },
  'rule-complexity': { severity: 'warning', doc: 'A rule near a limit of the service: 80% of its 4,096 characters or of its 64 regular expressions (`matches`, `wildcard`); the figures are in the message.' },
  'ruleset-complexity': { severity: 'warning', doc: 'A ruleset near the service’s limits: 80% of its 200 rules, or a total evaluation cost far above the usual (every packet pays it); the figures are in the message.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type AnalysisCode = keyof typeof ANALYSIS_CODES;
