/**
 * The peers' published verdicts (test/expression/peers/*.json, README there): every expression three peers'
 * test suites call valid or invalid, checked with rulekit as a ruleset of its phase is checked. rulekit
 * gives the peer's verdict, except on the judgement calls, where it must give the other one (a judgement
 * that no longer holds fails, so the list is kept to the real differences); the README's tables match the
 * files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkExpression, checkValueExpression, parseExpression, HTTP_SCHEME, NETWORK_SCHEME, type ExpressionOptions } from '../../src/expression/index.js';
import { phaseFieldDiagnostics, phaseInfo } from '../../src/ruleset/index.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';

interface PeerCase {
  expr: string;
  phase?: string;
  peerPhase?: string;
  context?: 'value';
  peerContext?: string;
  /** `syntax`: the peer's parser test says only whether it parses. */
  level?: 'syntax';
  valid: boolean;
  source: string;
  how: string;
  judgement?: { kind: string; reason: string };
}
interface PeerFile { peer: string; repo: string; commit: string; about: string; cases: PeerCase[] }

const dir = new URL('./peers/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ file: f, data: JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as PeerFile }));
const readme = readFileSync(new URL('README.md', dir), 'utf8');

const KINDS = ['docs-say-otherwise', 'undocumented-function', 'undocumented-field', 'outside-phase-catalog', 'undocumented-literal', 'not-a-verdict', 'wirefilter-quirk', 'docs-silent'];

/** The errors rulekit reports for a case, checked as a rule of its phase (HTTP fields when it has none). */
function errors(c: PeerCase): Diagnostic[] {
  const info = c.phase === undefined ? undefined : phaseInfo(c.phase);
  const phase = info ? c.phase : undefined;
  const options: ExpressionOptions = {
    scheme: info?.fields === 'network' ? NETWORK_SCHEME : HTTP_SCHEME,
    // The peers write Cloudflare's spelling of the managed lists ($cf.malware).
    serviceToken: 'cf',
    ...(phase !== undefined && info?.fields === 'http' ? { phase } : {}),
  };
  if (c.level === 'syntax') return parseExpression(c.expr).diagnostics.filter((d) => d.severity === 'error');
  const r = c.context === 'value' ? checkValueExpression(c.expr, options) : checkExpression(c.expr, options);
  return phaseFieldDiagnostics(c.expr, r.diagnostics, phase, r.ast).filter((d) => d.severity === 'error');
}

describe('peers’ verdicts', () => {
  for (const { file, data } of files) {
    describe(`${data.peer} @${data.commit.slice(0, 12)}`, () => {
      it('names the peer, its repository and a full commit; every case cites a test file and line', () => {
        expect(data.repo).toBe(`https://github.com/${data.peer}`);
        expect(data.commit).toMatch(/^[0-9a-f]{40}$/);
        for (const c of data.cases) expect(c.source, c.expr).toMatch(/^[\w./-]+\.(ts|rs|py):\d+/);
        expect(file).toBe(`${data.peer.replace('/', '-')}.json`);
      });
      for (const c of data.cases) {
        const where = [c.phase ?? c.peerPhase, c.context, c.level].filter(Boolean).join(' ');
        it(`${c.valid ? 'valid' : 'invalid'}${where ? ` (${where})` : ''}: ${JSON.stringify(c.expr).slice(0, 100)}${c.judgement ? ` — judgement: ${c.judgement.kind}` : ''}`, () => {
          const errs = errors(c);
          const rulekitValid = errs.length === 0;
          if (c.judgement) {
            expect(KINDS).toContain(c.judgement.kind);
            expect(c.judgement.reason.length).toBeGreaterThan(20);
            expect(rulekitValid, `the judgement no longer holds: rulekit agrees with the peer (${c.source})`).toBe(!c.valid);
          } else {
            expect(errs.map((d) => `${d.code}: ${d.message}`), `${c.source}: ${c.how}`).toEqual(c.valid ? [] : expect.arrayContaining([expect.any(String)]));
            expect(rulekitValid).toBe(c.valid);
          }
        });
      }
    });
  }

  it('the README counts every file and lists every judgement call', () => {
    let cases = 0;
    let judged = 0;
    for (const { file, data } of files) {
      const j = data.cases.filter((c) => c.judgement).length;
      const valid = data.cases.filter((c) => c.valid).length;
      cases += data.cases.length;
      judged += j;
      expect(readme).toContain(`| ${file} | ${data.peer} | \`${data.commit.slice(0, 12)}\` | ${data.cases.length} | ${valid} | ${data.cases.length - valid} | ${data.cases.length - j} | ${j} |`);
      for (const c of data.cases.filter((x) => x.judgement)) {
        const shown = JSON.stringify(c.expr).slice(1, -1).replace(/\|/g, '\\|');
        const line = readme.split('\n').find((l) => l.startsWith(`| ${data.peer} |`) && l.includes(`\`\`${shown}\`\``) && l.includes(`| ${c.judgement!.kind} |`));
        expect(line, `README lists ${c.expr}`).toBeDefined();
      }
    }
    expect(readme).toMatch(new RegExp(`\\| \\*\\*total\\*\\* \\| \\| \\| \\*\\*${cases}\\*\\* \\|.*\\*\\*${judged}\\*\\* \\|`));
    expect(files.map((f) => f.data.peer).sort()).toEqual(['doctena-org/octorules-cloudflare', 'doctena-org/octorules-wirefilter', 'jonasbb/cloudflare-rule-linter', 'troymjones/cloudflare-expression-lint']);
  });
});
