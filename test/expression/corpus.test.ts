/**
 * The conformance corpus (test/expression/corpus/*.json, each case citing its source) run against the
 * checker, the interpreter, the generated matcher and the closure matcher.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
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
  differsFromWirefilter?: string;
}

const dir = join(import.meta.dirname, 'corpus');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
const casesOf = (file: string) => (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { cases: Case[] }).cases;

describe('the corpus and its README', () => {
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');

  it('the README table gives each file\'s counts and the total', () => {
    expect(files.length).toBeGreaterThan(0);
    const rows = new Map<string, number[]>();
    for (const m of readme.matchAll(/^\| (\S+\.json|\*\*total\*\*) \| ([^\n]*)$/gm)) {
      rows.set(m[1]!, m[2]!.split('|').slice(0, 5).map((x) => Number(x.replace(/\*/g, '').trim())));
    }
    const total = [0, 0, 0, 0, 0];
    for (const f of files) {
      const cases = casesOf(f);
      const counts = [
        cases.length,
        cases.filter((c) => c.valid).length,
        cases.filter((c) => !c.valid).length,
        cases.reduce((n, c) => n + (c.evaluations?.length ?? 0), 0),
        cases.filter((c) => c.differsFromWirefilter).length,
      ];
      counts.forEach((n, i) => (total[i]! += n));
      expect(rows.get(f), `README row of ${f}: cases, valid, invalid, evaluation packets, differsFromWirefilter`).toEqual(counts);
    }
    expect(rows.get('**total**')).toEqual(total);
    expect(rows.size).toBe(files.length + 1);
  });

  it('cases that cite our spec name the file where it lives in the repository', () => {
    const root = join(dir, '..', '..', '..');
    let cited = 0;
    for (const f of files) {
      for (const c of casesOf(f)) {
        const m = c.source.match(/^([\w./-]+\.md)\b/);
        if (!m) continue;
        cited++;
        expect(existsSync(join(root, m[1]!)), `${f} / ${c.name}: ${m[1]} is not in the repository`).toBe(true);
      }
    }
    expect(cited).toBeGreaterThan(100);
  });
});

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
      // The README's promise: `error` is the first error's code.
      expect(c.error, `${c.name}: an invalid case names its first error`).toBeTypeOf('string');
      expect(errors[0]!.code, where).toBe(c.error);
      expect(c.evaluations ?? [], 'invalid cases carry no evaluations').toEqual([]);
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
