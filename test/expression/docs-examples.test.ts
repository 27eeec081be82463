/**
 * No false red: every expression and Logpush filter Cloudflare's public docs show (test/fixtures/docs-examples,
 * each with its page and commit) is accepted by rulekit as the service would take it — in a one-rule ruleset
 * of the page's phase, or alone with the HTTP fields when the page names no phase — and what the docs say
 * is refused is refused. The few examples where the docs contradict their own rules are listed below with
 * the docs' words, and docs/expressions.md gives them too; any other disagreement fails.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkExpression, checkValueExpression, HTTP_SCHEME, NETWORK_SCHEME } from '../../src/expression/index.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { PHASE_CATALOG, validateRuleset } from '../../src/ruleset/index.js';
import { checkLogFilter } from '../../src/logpush/index.js';

interface Example {
  expression: string;
  valid: boolean;
  phase?: string;
  kind: 'filter' | 'value';
  context?: 'counting_expression' | 'credential_expression';
  source: { path: string; commit: string };
  note?: string;
  constructed?: boolean;
}

const dir = new URL('../fixtures/docs-examples/', import.meta.url);
const EXAMPLES = JSON.parse(readFileSync(new URL('expressions.json', dir), 'utf8')) as Example[];
const FILTERS = JSON.parse(readFileSync(new URL('filters.json', dir), 'utf8')) as { filter: unknown; dataset: string; valid: boolean; source: { path: string } }[];

/**
 * Examples where rulekit follows the docs' rule rather than the docs' example (docs/expressions.md,
 * "Where the docs disagree with themselves"). Keyed by the example's text.
 */
const REGEX_IN_FILTER = 'functions.mdx shows regex_replace() in equalities, and says "You can only use the regex_replace() function in rewrite expressions of Transform Rules and target URL expressions of dynamic URL redirects"';
const URL_DECODE_LITERAL = 'functions.mdx shows url_decode() of a literal, and says of its argument "The source must be a field"';
const DOCS_CONTRADICTIONS: Record<string, string> = {
  'regex_replace("/foo/bar", "/bar$", "/baz") == "/foo/baz"': REGEX_IN_FILTER,
  'regex_replace("/x", "^/y$", "/mumble") == "/x"': REGEX_IN_FILTER,
  'regex_replace("/foo", "^/FOO$", "/x") == "/foo"': REGEX_IN_FILTER,
  'regex_replace("/a/a", "/a", "/b") == "/b/a"': REGEX_IN_FILTER,
  'regex_replace("/b", "^/b$", "/b$$") == "/b$"': REGEX_IN_FILTER,
  'regex_replace("/foo/a/path", "^/foo/([^/]*)/(.*)$", "/bar/${2}/${1}") == "/bar/path/a/"': REGEX_IN_FILTER,
  'url_decode("John%20Doe")': URL_DECODE_LITERAL,
  'url_decode("%2520", "r")': URL_DECODE_LITERAL,
  'http.host eq "www.cloudflare.com" or ip.src in 203.0.113.0/24': 'operators.mdx writes a CIDR after `in` without braces; the Network Firewall\'s "Form expressions" says "Wirefilter comparisons support CIDR notation, but only inside sets" (ip.src in { 192.0.2.0/24 })',
  '# Match requests where the delivery rate is below 100 KB/s\ncf.edge.l4.delivery_rate < 100000': 'the fields reference (index.yaml) keeps a # comment line in the example of cf.edge.l4.delivery_rate; the Rules language reference documents no comments, and the same expression without the line is accepted',
};

/** An action each phase takes, to put the example in a rule of its phase. */
const ACTION: Record<string, string> = {
  http_request_dynamic_redirect: 'redirect', http_request_redirect: 'redirect', http_request_transform: 'rewrite', http_request_late_transform: 'rewrite',
  http_response_headers_transform: 'rewrite', http_request_origin: 'route', http_request_cache_settings: 'set_cache_settings', http_config_settings: 'set_config',
  http_request_firewall_custom: 'block', http_ratelimit: 'block', http_request_firewall_managed: 'skip', http_response_compression: 'compress_response',
  http_custom_errors: 'serve_error', magic_transit: 'block',
};

const RATELIMIT = { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 10, mitigation_timeout: 600 };

/** The errors rulekit gives the example where the service would read it. */
function errors(e: Example): Diagnostic[] {
  const text = e.expression;
  const phase = e.phase && Object.hasOwn(PHASE_CATALOG, e.phase) ? (e.phase as keyof typeof PHASE_CATALOG) : undefined;
  if (phase) {
    const scope = (PHASE_CATALOG[phase].scopes as readonly string[]).includes('zone') ? 'zone' : 'account';
    const rule: Record<string, unknown> = { action: ACTION[phase] ?? PHASE_CATALOG[phase].actions[0], expression: 'true' };
    let pointer: string;
    if (e.kind === 'filter' && e.context === 'counting_expression') {
      rule['ratelimit'] = { ...RATELIMIT, counting_expression: text };
      pointer = '/rules/0/ratelimit/counting_expression';
    } else if (e.kind === 'filter') {
      rule['expression'] = text;
      pointer = '/rules/0/expression';
      if (phase === 'http_ratelimit') rule['ratelimit'] = RATELIMIT;
    } else if (e.context === 'credential_expression') {
      rule['action'] = 'log';
      rule['exposed_credential_check'] = { username_expression: text, password_expression: text };
      pointer = '/rules/0/exposed_credential_check/username_expression';
    } else if (phase === 'http_request_dynamic_redirect') {
      rule['action_parameters'] = { from_value: { target_url: { expression: text } } };
      pointer = '/rules/0/action_parameters/from_value/target_url/expression';
    } else if (phase === 'http_request_transform') {
      rule['action_parameters'] = { uri: { path: { expression: text } } };
      pointer = '/rules/0/action_parameters/uri/path/expression';
    } else {
      rule['action_parameters'] = { headers: { 'X-Test': { operation: 'set', expression: text } } };
      pointer = '/rules/0/action_parameters/headers/X-Test/expression';
    }
    const body = { name: 'docs', kind: scope === 'zone' ? 'zone' : e.context === 'credential_expression' ? 'custom' : 'root', phase, rules: [rule] };
    return validateRuleset(body, { scope }).filter((d) => d.severity === 'error' && (d.pointer ?? '').startsWith(pointer));
  }
  if (e.kind === 'value') return checkValueExpression(text, { scheme: HTTP_SCHEME }).diagnostics.filter((d) => d.severity === 'error');
  const http = checkExpression(text, { scheme: HTTP_SCHEME }).diagnostics.filter((d) => d.severity === 'error');
  if (!http.length) return [];
  // A page without a phase may be the Network Firewall's: its fields are the packet ones.
  const network = checkExpression(text, { scheme: NETWORK_SCHEME }).diagnostics.filter((d) => d.severity === 'error');
  return network.length ? http : [];
}

describe("the docs' examples", () => {
  it(`${EXAMPLES.length} expressions from the docs: every one agrees, or is a listed contradiction of the docs with their own rule`, () => {
    const disagree: string[] = [];
    let agree = 0;
    const used = new Set<string>();
    for (const e of EXAMPLES) {
      const found = errors(e);
      const accepted = found.length === 0;
      if (accepted === e.valid) {
        agree++;
        continue;
      }
      if (Object.hasOwn(DOCS_CONTRADICTIONS, e.expression) && e.valid && !accepted) {
        used.add(e.expression);
        continue;
      }
      disagree.push(`${e.valid ? 'refused' : 'accepted'}: ${JSON.stringify(e.expression)} (${e.phase ?? 'no phase'}; ${e.source.path}) ${found.map((d) => `${d.code}: ${d.message}`).join(' | ')}`);
    }
    expect(disagree).toEqual([]);
    // Each listed contradiction is still one: a fixed rule or a changed example takes it off the list.
    expect([...used].sort()).toEqual(Object.keys(DOCS_CONTRADICTIONS).sort());
    expect(agree + used.size).toBe(EXAMPLES.length);
  });

  it("the refused examples are refused for the docs' reason (a code that says it)", () => {
    for (const e of EXAMPLES.filter((x) => !x.valid)) expect(errors(e).length, e.expression).toBeGreaterThan(0);
    const over = EXAMPLES.find((e) => e.phase === 'magic_transit' && !e.valid && e.expression.includes('tcp.dstport == 1017'))!;
    expect(errors(over).map((d) => d.code)).toEqual(['rule-complexity-limit']);
  });

  it(`${FILTERS.length} Logpush filters from the docs agree`, () => {
    for (const f of FILTERS) {
      const text = typeof f.filter === 'string' ? f.filter : JSON.stringify(f.filter);
      const errs = checkLogFilter(text, { dataset: f.dataset }).diagnostics.filter((d) => d.severity === 'error');
      expect(errs.length === 0, `${text} (${f.source.path}): ${errs.map((d) => d.message).join(' | ')}`).toBe(f.valid);
    }
  });
});
