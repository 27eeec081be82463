/**
 * `rulekit diff` on Logpush filters as built (dist/bundle/cli.js): filter documents and job bodies (JSON,
 * YAML), the dataset from the jobs or --dataset, counts over gzipped NDJSON lines, the output formats and
 * the exit codes of --fail-on for filters.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-diff-filter-'));

function run(...args: string[]) {
  return runCli(['diff', ...args], { cwd: dir, timeout: 30_000 });
}
const file = (name: string, text: string | Buffer) => {
  writeFileSync(join(dir, name), text);
  return name;
};
const clause = (key: string, operator: string, value: unknown) => ({ key, operator, value });
const errors = file('errors.json', JSON.stringify({ where: clause('EdgeResponseStatus', 'geq', 400) }));
const serverErrors = JSON.stringify({ where: { and: [clause('EdgeResponseStatus', 'geq', 500), clause('ClientCountry', '!in', ['de'])] } });
const job = file('job.yaml', `dataset: http_requests\ndestination_conf: r2://logs\nfilter: '${serverErrors}'\n`);
const lines = file('lines.ndjson.gz', gzipSync([
  { EdgeResponseStatus: 404, ClientCountry: 'us' },
  { EdgeResponseStatus: 503, ClientCountry: 'de' },
  { EdgeResponseStatus: 503, ClientCountry: 'us' },
  { EdgeResponseStatus: 200 },
].map((l) => JSON.stringify(l)).join('\n') + '\n'));

describe('rulekit diff on Logpush filters', () => {
  it('a filter document against a YAML job: the lines newly dropped, each with a witness', () => {
    const r = run(errors, job);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe([
      'job.yaml (http_requests): 2 region(s) of log lines that change (2 exact, 0 unknown)',
      '  = EdgeResponseStatus 400..499: pushed → dropped',
      '      witness {"EdgeResponseStatus":400}',
      '  = EdgeResponseStatus >= 400, ClientCountry "de" or missing: pushed → dropped',
      '      witness {"EdgeResponseStatus":400,"ClientCountry":"de"}',
      '',
    ].join('\n'));
  });

  it('--against gzipped NDJSON: the lines that change, per region', () => {
    const r = run(errors, job, '--against', lines);
    expect(r.out).toContain('= EdgeResponseStatus 400..499: pushed → dropped  [1 lines]');
    expect(r.out).toContain('lines: 2 of 4 change (0 newly pushed, 2 newly dropped)');
    const json = JSON.parse(run(errors, job, '--against', lines, '--format', 'json').out);
    expect(json.summary).toEqual({ regions: 2, exact: 2, unknown: 0, newlyPushed: 0, newlyDropped: 2 });
    expect(json.reports[0]).toMatchObject({ name: 'job.yaml', dataset: 'http_requests', counts: { lines: 4, newlyPushed: 0, newlyDropped: 2, outside: 0 } });
    expect(run(errors, job, '--against', file('bad.ndjson', '{"a":1}\nnot json\n'))).toMatchObject({ code: 2, err: 'rulekit: bad.ndjson:2: not a JSON object (NDJSON log lines, gzipped or not)\n' });
  });

  it('--fail-on: newly-pushed, newly-dropped, any, none', () => {
    expect(run(errors, job, '--fail-on', 'newly-dropped').code).toBe(1);
    expect(run(errors, job, '--fail-on', 'newly-pushed').code).toBe(0);
    expect(run(job, errors, '--fail-on', 'newly-pushed').code).toBe(1);
    expect(run(errors, job, '--fail-on', 'any').code).toBe(1);
    expect(run(errors, job, '--fail-on', 'none').code).toBe(0);
    expect(run(errors, errors, '--fail-on', 'any')).toMatchObject({ code: 0, out: 'errors.json (http_requests): no log line changes\n' });
    expect(run(errors, job, '--fail-on', 'blocks-added')).toMatchObject({ code: 2, err: 'rulekit: --fail-on on Logpush filters takes any, newly-pushed, newly-dropped, none, not "blocks-added"\n' });
  });

  it('a JSON job without a filter pushes every line; the dataset comes from the jobs, else --dataset', () => {
    const all = file('all.json', JSON.stringify({ dataset: 'http_requests', destination_conf: 'r2://logs' }));
    expect(run(errors, all).out).toContain('= EdgeResponseStatus <= 399 or missing: dropped → pushed');
    const fw = file('fw.json', JSON.stringify({ dataset: 'firewall_events', filter: '' }));
    expect(run(all, fw)).toMatchObject({ code: 2, err: 'rulekit: all.json is a job of http_requests, fw.json one of firewall_events: their log lines have different fields, so nothing is compared\n' });
    expect(run(errors, job, '--dataset', 'firewall_events')).toMatchObject({ code: 2, err: 'rulekit: --dataset firewall_events, but the job says http_requests\n' });
    expect(run(errors, errors, '--dataset', 'nope').code).toBe(2);
    const country = file('country.json', JSON.stringify({ where: clause('ClientCountry', 'eq', 'de') }));
    expect(run(country, file('country2.json', JSON.stringify({ where: clause('ClientCountry', 'in', ['de', 'fr']) })), '--dataset', 'http_requests').out).toContain('= ClientCountry "fr": dropped → pushed');
  });

  it('a filter with errors: its diagnostic on stderr, exit 1; a filter against a ruleset: exit 2', () => {
    const bad = file('bad.json', JSON.stringify({ where: clause('NoSuchField', 'eq', 'x') }));
    const r = run(errors, bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^rulekit: bad\.json: error: .*NoSuchField/);
    const ruleset = file('rs.json', JSON.stringify({ phase: 'network_transit', rules: [{ action: 'block', expression: 'tcp.dstport == 22' }] }));
    expect(run(errors, ruleset)).toMatchObject({ code: 2, err: 'rulekit: errors.json is a Logpush filter and rs.json is not: give two filters (or jobs), or two rulesets\n' });
    expect(run(ruleset, ruleset, '--fail-on', 'newly-pushed').code).toBe(2);
  });

  it('markdown and GitHub annotations on the new job\'s filter line', () => {
    const md = run(errors, job, '--format', 'markdown', '--against', lines).out;
    expect(md).toContain('| exact | `EdgeResponseStatus 400..499` | pushed → dropped | 1 | `{"EdgeResponseStatus":400}` |');
    const gh = run(errors, job, '--format', 'github').out.trim().split('\n');
    expect(gh).toHaveLength(2);
    expect(gh[0]).toBe('::warning file=job.yaml,line=3,title=rulekit diff%3A lines newly dropped::http_requests: EdgeResponseStatus 400..499: pushed → dropped; for example {"EdgeResponseStatus":400}');
  });
});
