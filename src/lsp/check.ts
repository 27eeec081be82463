/**
 * A document's check: its kind, what lint extracts from it, the regions, and the diagnostics. The quick
 * check runs on every change (extraction and validation: a few milliseconds for a 200-rule ruleset,
 * bench/lsp.ts); the full check adds what costs more — ruleset analysis, and for Terraform HashiCorp's
 * parser — and runs once typing pauses.
 * @module
 */
import { checkExtracted, detectKind, extract, kindOfPath, regrade, type Extracted, type InputKind, type LintDiagnostic } from '../lint/index.js';
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

/**
 * The quick check. JSON and YAML files of no known shape are not reported (an editor opens every JSON
 * file; only request bodies are ours).
 */
export function quickCheck(text: string, version: number, kind: InputKind, settings: Settings): DocumentCheck {
  const extracted = extract(text, kind, false);
  const diagnostics = regrade(checkExtracted(extracted, { expression: settings.expression, analysis: false }), settings.severity);
  return { version, kind, extracted, regions: regionsOf(extracted), diagnostics, full: false };
}

/** The full check of the same text: `rulekit lint`'s own, on the full checker's thread. */
export async function fullCheck(checker: FullChecker, quick: DocumentCheck, text: string, settings: Settings): Promise<DocumentCheck> {
  const diagnostics = await checker.check(text, quick.kind, settings);
  return { ...quick, diagnostics, full: true };
}
