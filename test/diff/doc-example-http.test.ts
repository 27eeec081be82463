/**
 * docs/diff.md's "A real HTTP change, counted over Logpush lines": a zone's custom rules from the real-file
 * corpus against a changed copy (test/fixtures/diff), counted over examples/http_requests.ndjson. The command
 * of the page's block prints exactly the block's output, in process and on DuckDB and chdb alike (stderr
 * too: the deprecated `ip.geoip.country` is read from `ClientCountry` by all three, not reported lacking).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { docExample } from '../helpers/doc-example.js';

describe('docs/diff.md: a real HTTP change counted over Logpush lines', () => {
  const { args, output } = docExample('docs/diff.md', '### A real HTTP change, counted over Logpush lines');
  const warning = "rulekit: cloudflare_ruleset.firewall_custom_hibare_in: warning: the new ruleset's rule 2 reads cf.bot_management.score, which 1 of 6 Logpush lines lack (Logpush field BotScore): over those lines the rule is not decided by the logs [http-logpush-missing-field]\n";

  it('names a corpus file and its changed copy', () => {
    expect(args.slice(0, 3)).toEqual(['diff', 'test/fixtures/real/terraform/hibare__Server-Scripts__terraform__cloudflare__ruleset_hibare.tf', 'test/fixtures/diff/hibare__Server-Scripts__terraform__cloudflare__ruleset_hibare.changed.tf']);
    expect(output).toContain('traffic: 3 of 6 requests change (3 change verdict)');
  });

  for (const engine of [[], ['--engine', 'duckdb'], ['--engine', 'clickhouse']]) {
    it(`prints what the page shows${engine.length ? ` on ${engine[1]}` : ' in process'}`, () => {
      expect(runCli([...args, ...engine], { timeout: 120_000 })).toEqual({ code: 0, out: output, err: warning });
    });
  }
});
