/**
 * Diff cases of `rulekit test`: the ruleset under test against a base ruleset (a file, or the ruleset at
 * a git revision), the figures of the diff checked, a failure naming the first region that breaks the
 * expectation, and the problems of a base that cannot be read, where the case writes it.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSuite, runSuite } from '../../src/ruletest/index.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-ruletest-diff-'));
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
const write = (name: string, value: unknown) => writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const body = (rules: object[]) => ({ phase: 'network_transit', rules });

async function run(test: string) {
  write('t.ruletest.yaml', test);
  const loaded = await loadSuite(join(dir, 't.ruletest.yaml'));
  if (!loaded.suite) return { problems: loaded.problems.map((p) => p.message), cases: [] };
  return { problems: [], cases: (await runSuite(loaded.suite)).cases };
}

describe('diff cases', () => {
  git('init', '-q');
  write('fw.json', body([{ action: 'block', ref: 'ssh', expression: 'tcp.dstport in {22 23}' }]));
  git('add', 'fw.json');
  git('commit', '-qm', 'one');
  // The edit: telnet unblocked, smb blocked.
  write('fw.json', body([{ action: 'block', ref: 'ssh', expression: 'tcp.dstport in {22 445}' }]));
  write('old.json', body([{ action: 'block', ref: 'ssh', expression: 'tcp.dstport == 22' }]));

  it('a base file: the figures pass when right', async () => {
    const r = await run('ruleset: fw.json\ncases:\n  - name: smb only\n    base: old.json\n    diff: { regions: 1, blocks-added: 1, allows-added: none, unknown: 0 }\n  - name: no unblock\n    base: old.json\n    diff: no-unblock\n');
    expect(r.problems).toEqual([]);
    expect(r.cases.map((c) => [c.name, c.kind, c.ok])).toEqual([['smb only', 'diff', true], ['no unblock', 'diff', true]]);
    expect(r.cases[0]!.trace).toEqual(['against old.json: 1 region(s) of packets that change (1 exact, 0 unknown)', '= tcp.dstport 445: allow → block by rule 0 "ssh"  witness {"tcp.dstport":445}']);
  });

  it('the base at a git revision: a change that unblocks fails no-unblock, naming the region', async () => {
    const r = await run('ruleset: fw.json\ncases:\n  - name: the edit must not unblock\n    base: { git: HEAD }\n    diff: no-unblock\n  - name: it blocks something\n    base: { git: HEAD }\n    diff: { no-new-blocks: 1 }\n');
    expect(r.problems).toEqual(['unknown key "no-new-blocks" in cases[1].diff (known: regions, blocks-added, allows-added, unknown)']);
    const ok = await run('ruleset: fw.json\ncases:\n  - name: the edit must not unblock\n    base: { git: HEAD }\n    diff: no-unblock\n  - name: nor block\n    base: { git: HEAD }\n    diff: no-new-blocks\n');
    expect(ok.cases.map((c) => c.ok)).toEqual([false, false]);
    expect(ok.cases[0]!.checks).toEqual([{ what: 'allows-added', expected: 'none', actual: '1 region(s) (tcp.dstport 23: block by rule 0 "ssh" → allow)', ok: false, line: 5, column: 11 }]);
    expect(ok.cases[0]!.trace[0]).toBe('against HEAD:fw.json: 2 region(s) of packets that change (2 exact, 0 unknown)');
  });

  it('a base that cannot be read is a problem where the case names it', async () => {
    const r = await run('ruleset: fw.json\ncases:\n  - name: a\n    base: { git: nosuchrev }\n    diff: no-change\n  - name: b\n    base: missing.json\n    diff: no-change\n');
    expect(r.problems).toHaveLength(2);
    expect(r.problems[0]).toMatch(/^the ruleset fw\.json at nosuchrev: fatal: /);
    expect(r.problems[1]).toBe('the ruleset missing.json: no such file');
  });
});
