/**
 * The language server's mapping between a file and the expressions in it, as a law: for an expression
 * kept in a JSON string, a YAML double-quoted scalar or a `.rules` line, completing at any cursor position
 * in the file gives the same proposals as completing the decoded expression, and an accepted proposal
 * written into the file decodes to the expression the proposal makes in decoded text (the literal's
 * escapes redone, the file still valid).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { completeExpression } from '../../src/language/index.js';
import { quickCheck } from '../../src/lsp/check.js';
import { completion } from '../../src/lsp/features/completion.js';
import { expressionOptions, type Settings } from '../../src/lsp/settings.js';
import { expression } from '../expression/arbitraries.js';

const SETTINGS: Settings = { id: 0, plain: { severity: {} }, expression: expressionOptions({ severity: {} }), severity: {}, problems: [] };

/** Files of one rule, and how to read the expression back out of them. */
const FORMATS = {
  json: {
    languageId: 'json',
    write: (e: string) => JSON.stringify({ rules: [{ action: 'block', expression: e }] }, null, 2),
    read: (t: string) => (JSON.parse(t) as { rules: { expression: string }[] }).rules[0]!.expression,
  },
  yaml: {
    languageId: 'yaml',
    write: (e: string) => `rules:\n  - action: block\n    expression: ${JSON.stringify(e)}\n`,
    read: (t: string) => (parseYaml(t) as { rules: { expression: string }[] }).rules[0]!.expression,
  },
  rules: {
    languageId: 'rulekit',
    write: (e: string) => `# rules\n${e}\n`,
    read: (t: string) => t.split('\n')[1]!,
  },
} as const;

/** Expressions with what the mapping must survive: escapes, quotes, backslashes, non-ASCII. */
const tricky = fc.oneof(
  expression,
  fc.constantFrom('ip.src.country == "us"', 'ip.proto == "t', 'tcp.d', 'ip.src in $', 'bit_slice(tcp, ', 'cf.colo.name == "Zürich" and ip.proto ', 'ip.proto matches "\\\\d+" or '),
);

describe('regions: file ↔ decoded expression', () => {
  for (const [kind, f] of Object.entries(FORMATS) as [keyof typeof FORMATS, (typeof FORMATS)[keyof typeof FORMATS]][]) {
    it(`${kind}: completion at any cursor is the decoded text's, and accepting it edits the file as in decoded text`, () => {
      fc.assert(
        fc.property(tricky.filter((e) => kind !== 'rules' || (!e.includes('\n') && e.trim() !== '' && !e.trimStart().startsWith('#'))), fc.nat(), fc.nat(), (expr, at, pick) => {
          const text = f.write(expr);
          const check = quickCheck(text, 1, kind, SETTINGS);
          const region = check.regions[0];
          expect(region, text).toBeDefined();
          expect(region!.map.text).toBe(kind === 'rules' ? expr.replace(/\r$/, '') : expr);
          // A cursor between two decoded units (not inside an escape sequence).
          const decoded = at % (expr.length + 1);
          const fileOffset = region!.map.toSource({ start: decoded, end: decoded }).start;
          const doc = TextDocument.create('file:///x', f.languageId, 1, text);
          const list = completion(doc, check, fileOffset, SETTINGS);
          const want = completeExpression(expr, decoded);
          expect(list?.items.map((i) => i.label)).toEqual(want.items.map((i) => i.label));
          if (!want.items.length) return;
          const k = pick % want.items.length;
          const item = list!.items[k]!;
          const edit = item.textEdit as { range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string };
          const edited = TextDocument.applyEdits(doc, [edit]);
          const w = want.items[k]!;
          expect(f.read(edited)).toBe(expr.slice(0, want.from) + (w.insertText ?? w.label) + expr.slice(want.to));
        }),
        { numRuns: 150 },
      );
    });
  }
});
