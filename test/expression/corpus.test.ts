/**
 * The conformance corpus (test/expression/corpus/*.json, each case citing its source) run against the
 * checker, the interpreter, the generated matcher and the closure matcher.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileExpression, interpret, NETWORK_SCHEME, type SchemeLiteral } from '../../src/index.js';

interface Case {
  name: string;
  source: string;
  expr: string;
  scheme?: SchemeLiteral;
  lists?: Record<string, string[]>;
  serviceToken?: string;
  valid: boolean;
  error?: string;
  evaluations?: { packet: Record<string, unknown>; result: boolean; note?: string }[];
}

const dir = join(import.meta.dirname, 'corpus');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe.each(files)('%s', (file) => {
  const { cases } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { cases: Case[] };
  it.each(cases.map((c) => [`${c.name} — ${c.expr.slice(0, 60)}`, c] as const))('%s', (_label, c) => {
    const scheme = c.scheme ? NETWORK_SCHEME.extend(c.scheme) : undefined;
    const options = { scheme, lists: c.lists, serviceToken: c.serviceToken };
    const r = compileExpression(c.expr, options);
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    const where = `${c.source}\n${JSON.stringify(r.diagnostics.map((d) => `${d.code}: ${d.message}`))}`;
    if (!c.valid) {
      expect(errors.length, where).toBeGreaterThan(0);
      if (c.error) expect(errors.map((d) => d.code), where).toContain(c.error);
      return;
    }
    expect(errors, where).toEqual([]);
    const closures = compileExpression(c.expr, { ...options, codegen: false });
    for (const e of c.evaluations ?? []) {
      const w = `${where}\npacket ${JSON.stringify(e.packet)} ${e.note ?? ''}`;
      expect(interpret(r.checked!, e.packet), w).toBe(e.result);
      expect(r.matcher!(e.packet), w).toBe(e.result);
      expect(closures.matcher!(e.packet), w).toBe(e.result);
    }
  });
});
