/** Every diagnostic code the source emits is in the one code table, with a documented meaning. */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
});
