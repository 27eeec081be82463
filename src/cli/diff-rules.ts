/**
 * The `.rules` sides of `rulekit diff`: a file of expressions, one per line (`#` comments, blank lines),
 * read as `rulekit lint` reads it (src/lint extractRules), diffed as a match set (src/diff/match-sets.ts):
 * each line a rule whose outcome is "matched by line N". No phase named: the lines are network_transit's
 * (packet fields), as lint reads them; `--phase` reads them as rules of another phase.
 * @module
 */
import { kindOfPath, detectKind, extractRules } from '../lint/index.js';
import { matchSetRuleset, type MatchSetLine } from '../diff/index.js';

/** The phase of a `.rules` file's lines when `--phase` names none (lint's: the seed's network phase). */
export const RULES_FILE_PHASE = 'network_transit';

/** A `.rules` file as one side of a diff: its lines, the ruleset it is diffed as, and each rule's line. */
export interface MatchSetSide {
  name: string;
  ruleset: { rules: unknown[]; phase?: unknown };
  lines: MatchSetLine[];
  lineOf(index: number): number | undefined;
}

/** Whether a file is read as a `.rules` file (by its name, else by its content, as lint tells). */
export function isRulesFile(path: string, text: string): boolean {
  return (kindOfPath(path) ?? detectKind(text)) === 'rules';
}

/** The match set of a `.rules` file's text; `shown` names it. */
export function matchSetSide(text: string, shown: string, phase: string | undefined): MatchSetSide {
  const lines: MatchSetLine[] = extractRules(text).items.map((item) => ({
    line: Number(item.label.replace(/^line /, '')),
    expression: 'map' in item ? item.map.text : '',
  }));
  return { name: shown, ruleset: matchSetRuleset(lines, phase ?? RULES_FILE_PHASE), lines, lineOf: (i) => lines[i]?.line };
}
