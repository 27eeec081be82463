/**
 * `rulekit lint` on 132 real public files where Cloudflare rules live (test/fixtures/real, each with its
 * repository, commit, path and SHA-256 in SOURCES.json): Terraform of both provider generations, JSON and
 * YAML bodies, Crossplane resources, octorules files.
 * - No false green, by an outside oracle: in every Terraform file, each rule expression, legacy filter
 *   expression and Logpush filter that HashiCorp's parser (`@cdktf/hcl2json`) finds is checked by rulekit
 *   or reported as not literal (or its resource as a phase rulekit does not model), and none is left unread.
 * - Every finding on the corpus is in a golden file (golden/real-corpus.txt; UPDATE_GOLDEN=1 rewrites it),
 *   and every code in it has a reviewed verdict below: a true problem of the file, or a gap of rulekit's.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as hclParse } from '@cdktf/hcl2json';
import { SourceText } from '../../src/diagnostics/index.js';
import { lintFiles, type FileReport } from '../../src/lint/index.js';
import { readLintInput } from '../../src/lint/run.js';
import { oracleValues } from '../../src/lint/terraform-oracle.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'real');
const GOLDEN = join(import.meta.dirname, 'golden', 'real-corpus.txt');
const SOURCES = JSON.parse(readFileSync(join(DIR, 'SOURCES.json'), 'utf8')) as { file: string; repo: string; commit: string; path: string; kind: string; sha256: string }[];

/**
 * The review of every code the corpus gives: why each finding is right, or which gap of rulekit's it is.
 * A code missing here fails the test: a new kind of finding on real files is read before it is accepted.
 */
const REVIEW: Record<string, string> = {
  'lint-not-literal': 'true: the value is a Terraform variable, call or for expression; said per value',
  'lint-interpolation': 'true: ${…} inside an expression, checked with a stand-in',
  'ruleset-unknown-phase': 'true: a phase the API does not have (said, not passed)',
  'rule-action-parameter-unknown': 'true: a member the action\'s parameters do not have in the API schema (warning)',
  'ruleset-scope': 'true: a phase at a level it does not have (ddos_l4 under zone_id in cf-terraforming test data; a dynamic redirect under account_id in the provider\'s example)',
  'ruleset-kind-level': 'true: a kind that does not go with the resource\'s level',
  'lint-unknown-action': 'true where the phase lacks the action (magic_transit "allow" in the provider\'s own example; ddos_l4 "block" in cf-terraforming test data)',
  'lint-parse-error': 'true: not valid HCL/JSON/YAML',
  'list-not-provided': 'true: a $list the run was not given (info)',
  'deprecated-field': 'true: ip.geoip.* (the docs say deprecated)',
  'matches-everything': 'true: an expression that is `true` (info)',
  'unknown-field': 'true: HTTP fields in bodies that name no phase are read as the seed\'s network rules (give "phase"); or a misspelt field',
  'syntax-error': 'true: shinjiroy rule_redirect.tf writes `and` twice',
  'value-expression-type': 'true: a rewrite value of the wrong type',
  'rule-skip-overlap': 'true: analysis finding',
  'rule-not-analysed': 'true: analysis says which rules it cannot reason about (info)',
  'rule-redundant': 'true: analysis finding, with its witness',
  'duplicate-set-item': 'true: the same item twice in a set (stalpers rules.json\'s ASN sets)',
  'rule-action-parameters': 'true: action_parameters of the wrong shape',
  'ruleset-read-only-member': 'true: members the API sets (id, version, last_updated) in a body',
  'ruleset-unknown-member': 'true: members the API does not have (a tool\'s own keys in an API body)',
  'rule-action-parameters-not-checked': 'gap: action_parameters of this action are not modelled yet (info)',
  'unknown-function': 'true: an HTTP function in a body read as network rules (no phase)',
  'rule-unknown-action': 'true: "Managed Challenge" (a dashboard label), "none", "rate_limit"',
  'rule-action-phase': 'true where the phase lacks the action; see the catalog of phases and actions',
  'function-arguments': 'true: concat() of an IP (octorules example; to_string() is needed)',
  'ruleset-unknown-kind': 'true: a kind the API does not have',
  'custom-field-expression': 'true: a log_custom_field rule\'s expression is "true"',
  'custom-field-invalid-name': 'true: a header name written as a field (http.request.headers["cf-ipcountry"])',
  'ruleset-phase-kind': 'true: a phase given a kind it does not go with',
  'lint-nothing-checked': 'true: a file with nothing rulekit reads',
};

let reports: FileReport[] | undefined;
async function lintCorpus(): Promise<FileReport[]> {
  reports ??= await lintFiles(
    SOURCES.filter((s) => !s.file.endsWith('.tfvars')).map((s) => ({ path: join(DIR, s.file), named: false })),
    { read: readLintInput },
  );
  return reports;
}

describe('the real-file corpus', () => {
  it(`${SOURCES.length} files, each with its repository, commit, path, and the bytes it was gathered with`, () => {
    expect(SOURCES.length).toBeGreaterThanOrEqual(100);
    for (const s of SOURCES) {
      expect(s.repo, s.file).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(s.commit, s.file).toMatch(/^[0-9a-f]{40}$/);
      expect(createHash('sha256').update(readFileSync(join(DIR, s.file))).digest('hex'), `${s.file} changed since it was gathered`).toBe(s.sha256);
    }
  });

  it("every rule expression and filter HashiCorp's parser finds in the Terraform files is checked or reported", async () => {
    const byPath = new Map((await lintCorpus()).map((r) => [r.path, r]));
    let oracleTotal = 0;
    let accounted = 0;
    for (const s of SOURCES.filter((x) => x.file.endsWith('.tf'))) {
      const text = readFileSync(join(DIR, s.file), 'utf8');
      const oracle = oracleValues(await hclParse(s.file, text));
      const r = byPath.get(join(DIR, s.file))!;
      expect(r.diagnostics.filter((d) => d.code === 'lint-unread-value').map((d) => d.message), s.file).toEqual([]);
      const seen = new Set([...r.checked, ...r.diagnostics.filter((d) => d.code === 'lint-not-literal').map((d) => d.where!)]);
      const wholeResources = new Set(r.diagnostics.filter((d) => d.code === 'ruleset-unknown-phase' || (d.code === 'lint-not-literal' && /\.rules$/.test(d.where ?? ''))).map((d) => d.where!.replace(/\.rules$/, '')));
      for (const v of oracle) {
        oracleTotal++;
        const address = v.label.split('.').slice(0, 2).join('.');
        if (seen.has(v.label) || wholeResources.has(address)) accounted++;
        else expect.fail(`${s.file}: ${v.label} found by hcl2json was neither checked nor reported`);
      }
    }
    expect(accounted).toBe(oracleTotal);
    expect(oracleTotal).toBeGreaterThan(200);
  });

  it('every finding is in the reviewed golden file', async () => {
    const lines: string[] = [];
    for (const r of await lintCorpus()) {
      const src = new SourceText(r.text);
      const rel = r.path.slice(DIR.length + 1);
      for (const d of r.diagnostics) {
        const at = d.range ? src.position(d.range.start) : undefined;
        lines.push(`${rel}:${at ? `${at.line}:${at.column + 1}` : '-'} ${d.severity}[${d.code}] ${d.message.replace(/\s+/g, ' ')}`);
      }
    }
    const actual = lines.join('\n') + '\n';
    if (process.env['UPDATE_GOLDEN'] || !existsSync(GOLDEN)) writeFileSync(GOLDEN, actual);
    expect(actual).toBe(readFileSync(GOLDEN, 'utf8'));
    const codes = new Set(lines.map((l) => /\[([a-z0-9-]+)\]/.exec(l)![1]!));
    expect([...codes].filter((c) => !Object.hasOwn(REVIEW, c)), 'codes without a review verdict').toEqual([]);
  });
});
