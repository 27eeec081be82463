/**
 * The full check's thread: ruleset analysis of a 200-rule body takes from a hundred milliseconds to over a
 * second (bench/lsp.ts), which on the server's thread would hold up every keystroke that lands meanwhile.
 * Here it runs `rulekit lint`'s own check of a text and answers with its diagnostics.
 * @module
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { ExpressionOptions } from '../expression/index.js';
import { lintText, type InputKind, type LintDiagnostic } from '../lint/index.js';
import { expressionOptions, type PlainSettings } from './settings.js';

/** A full check to run. */
export interface FullCheckRequest {
  id: number;
  text: string;
  kind: InputKind;
  settingsId: number;
  /** Sent with the first request of each settings id. */
  settings?: PlainSettings;
}

/** Its answer. */
export type FullCheckReply = { id: number; diagnostics: LintDiagnostic[] } | { id: number; error: string };

/** Marks the thread as this module's (workerData). */
export const WORKER_KIND = 'rulekit-lsp-full-check';

function workerMain(): void {
  const port = parentPort!;
  const known = new Map<number, { expression: ExpressionOptions; severity: PlainSettings['severity'] }>();
  port.on('message', (m: FullCheckRequest) => {
    if (m.settings) known.set(m.settingsId, { expression: expressionOptions(m.settings), severity: m.settings.severity });
    const s = known.get(m.settingsId) ?? { expression: {}, severity: {} };
    lintText(m.text, m.kind, false, { expression: s.expression, severity: s.severity }).then(
      (r) => port.postMessage({ id: m.id, diagnostics: r.diagnostics } satisfies FullCheckReply),
      (e: unknown) => port.postMessage({ id: m.id, error: (e as Error)?.stack ?? String(e) } satisfies FullCheckReply),
    );
  });
}

if (!isMainThread && workerData === WORKER_KIND) workerMain();
