/**
 * A document's check: its kind, what lint extracts from it, the regions, and the diagnostics. The quick
 * check runs on every change (extraction and validation: a few milliseconds for a 200-rule ruleset,
 * bench/lsp.ts); the full check adds what costs more — ruleset analysis, and for Terraform HashiCorp's
 * parser — and runs once typing pauses.
 * @module
 */
import { applySuppressions, checkExtracted, detectKind, extract, kindOfPath, regrade, type Extracted, type InputKind, type LintDiagnostic } from '../lint/index.js';
import type { FullChecker } from './full-check.js';
import { regionsOf, type Region } from './regions.js';
import type { Settings } from './settings.js';

/** What one version of a document gave. */
export interface DocumentCheck {
  version: number;
  kind: InputKind;
  extracted: Extracted;
  regions: Region[];
  diagnostics: LintDiagnostic[];
  /** True once the full check's diagnostics are in. */
  full: boolean;
}

/** Language ids editors give these files, by kind. */
const LANGUAGE_KINDS: Readonly<Record<string, InputKind>> = {
  rulekit: 'rules',
  'rulekit-rules': 'rules',
  json: 'json',
  jsonc: 'json',
  yaml: 'yaml',
  terraform: 'terraform',
  hcl: 'terraform',
  tf: 'terraform',
};

/** The kind of a document: by its file name, else its language id, else its text. */
export function kindOf(path: string | undefined, languageId: string, text: string): InputKind {
  return (path ? kindOfPath(path) : undefined) ?? LANGUAGE_KINDS[languageId] ?? detectKind(text);
}

/** Member names of the bodies lint reads: a JSON or YAML file without any is not ours. */
const OURS = /["']?\b(?:expression|rules|filter|where|destination_conf|dataset)\b["']?\s*:/;

/**
 * What an editor should show of a JSON or YAML file's diagnostics. Files of no known shape are not
 * reported (an editor opens every JSON file; only request bodies are ours), nor is the syntax error of a
 * file that names none of our members — the editor's own JSON or YAML support reports that.
 */
function shown(text: string, kind: InputKind, diagnostics: LintDiagnostic[]): LintDiagnostic[] {
  if ((kind !== 'json' && kind !== 'yaml') || OURS.test(text)) return diagnostics;
  return diagnostics.filter((d) => d.code !== 'lint-parse-error');
}

/** The quick check. */
export function quickCheck(text: string, version: number, kind: InputKind, settings: Settings): DocumentCheck {
  const extracted = extract(text, kind, false);
  // Suppression comments apply as they type; whether one is unused waits for the full check (it has analysis).
  const found = applySuppressions(checkExtracted(extracted, { expression: settings.expression, analysis: false }), text, kind, { report: false });
  const diagnostics = shown(text, kind, regrade(found, settings.severity));
  return { version, kind, extracted, regions: regionsOf(extracted), diagnostics, full: false };
}

/** The full check of the same text: `rulekit lint`'s own, on the full checker's thread. */
export async function fullCheck(checker: FullChecker, quick: DocumentCheck, text: string, settings: Settings): Promise<DocumentCheck> {
  const diagnostics = shown(text, quick.kind, await checker.check(text, quick.kind, settings));
  return { ...quick, diagnostics, full: true };
}
