/** `rulekit export --wireshark EXPR`: print the equivalent Wireshark display filter. @module */
import { renderDiagnostics } from '../index.js';
import { toWireshark } from '../export/index.js';
import { loadLists } from './lists.js';
import { UsageError } from './io.js';

/** Run the export command; returns the exit code (1 when some part has no equivalent). */
export async function exportCommand(expression: string, options: { wireshark?: boolean; lists?: string; serviceToken?: string }, out: (s: string) => void): Promise<number> {
  if (!options.wireshark) throw new UsageError('choose a target: --wireshark');
  const r = toWireshark(expression, { lists: await loadLists(options.lists), serviceToken: options.serviceToken });
  if (r.diagnostics.length) process.stderr.write(renderDiagnostics(expression, r.diagnostics, { file: 'expression' }) + '\n');
  if (r.filter === undefined) return 1;
  out(r.filter + '\n');
  return 0;
}
