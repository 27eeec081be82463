/**
 * docs/diff.md's examples, run as written: the command of its "A real change, counted on a capture"
 * block (two real files of the corpus and a capture) and of its HTTP block counted on an engine over
 * Logpush lines must print exactly the block's output, so the page cannot drift from what `rulekit diff`
 * says.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { docExample } from '../helpers/doc-example.js';

const example = (heading: string) => docExample('docs/diff.md', heading);

describe('docs/diff.md', () => {
  it('the real change counted on a capture prints what the page shows', () => {
    const { args, output } = example('### A real change, counted on a capture');
    expect(args.slice(0, 1)).toEqual(['diff']);
    expect(runCli(args, { timeout: 30_000 })).toEqual({ code: 0, out: output, err: '' });
  });

  it('the HTTP change counted over Logpush lines on an engine prints what the page shows, on DuckDB and chdb', () => {
    const { args, output } = example('- HTTP phases: over Logpush `http_requests` lines');
    expect(args).toContain('--engine');
    for (const engine of ['duckdb', 'clickhouse']) {
      const r = runCli(args.map((a) => (a === 'duckdb' ? engine : a)));
      // The one line without BotScore leaves rule 0 of each side undecided there: warned of, as simulate warns.
      expect(r.err.split('\n').filter(Boolean).every((l) => l.endsWith('[http-logpush-missing-field]')), engine).toBe(true);
      expect(r.code, engine).toBe(0);
      expect(r.out, engine).toBe(output);
      // The same lines counted in process give the same output.
      expect(runCli(args.slice(0, args.indexOf('--engine'))).out).toBe(output);
    }
  });
});
