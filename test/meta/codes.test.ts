/**
 * Every diagnostic code the source emits is in the one code table, with a documented meaning: every
 * `*_CODES` table in src/ joins it (the tables are found by reading the sources, so a table added later
 * without joining fails here), and docs/diagnostics.md has a row for each.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DIAGNOSTIC_CODES } from '../../src/index.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('diagnostic code table', () => {
  it('every code has a severity and a one-line doc', () => {
    for (const [code, info] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(['error', 'warning', 'info', 'hint']).toContain(info.severity);
      expect(info.doc.length, code).toBeGreaterThan(15);
    }
  });

  it('every code the expression and ruleset sources emit is in the table', () => {
    const used = new Set<string>();
    for (const f of [...files('src/expression'), ...files('src/ruleset'), ...files('src/engine')]) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/(?:expressionDiagnostic|rulesetDiagnostic|this\.add)\(\s*(?:ipLike \? )?'([a-z0-9-]+)'(?: : '([a-z0-9-]+)')?/g)) {
        used.add(m[1]!);
        if (m[2]) used.add(m[2]);
      }
    }
    expect(used.size).toBeGreaterThan(30);
    for (const code of used) expect(DIAGNOSTIC_CODES[code], code).toBeDefined();
  });

  it('holds every code of every *_CODES table in src/', async () => {
    const tables: string[] = [];
    for (const file of files('src')) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^export const ([A-Z_]+_CODES)\b/gm)) {
        const mod = (await import(join('..', '..', file))) as Record<string, unknown>;
        const table = mod[m[1]!];
        // Sets of code names (SAFE_FIX_CODES) and of country codes are not code tables.
        if (!table || typeof table !== 'object' || table instanceof Set) continue;
        const rows = Object.entries(table as Record<string, unknown>);
        if (!rows.every(([, v]) => typeof v === 'object' && v !== null && 'severity' in v && 'doc' in v)) continue;
        tables.push(`${m[1]} (${relative('.', file)})`);
        for (const [code] of rows) expect(DIAGNOSTIC_CODES[code], `${code} of ${m[1]} in ${file}`).toBeDefined();
      }
    }
    // The scan found the tables (a changed declaration style would make it find none and pass).
    expect(tables.length).toBeGreaterThanOrEqual(10);
    for (const name of ['EXPRESSION_CODES', 'LINT_CODES', 'SERVER_CODES']) expect(tables.join('\n')).toContain(name);
  });

  it('docs/diagnostics.md has a row for every code, and no other', () => {
    const rows = [...readFileSync('docs/diagnostics.md', 'utf8').matchAll(/^\| `([a-z0-9-]+)` \| \d+ \|/gm)].map((m) => m[1]);
    expect([...rows].sort()).toEqual(Object.keys(DIAGNOSTIC_CODES).sort());
  });
});
