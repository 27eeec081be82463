/**
 * What the playground shows on first load: an expression with a packet it matches and two it does not,
 * a ruleset in the shape of examples/ruleset.json with its lists, and an HTTP requests filter with log lines
 * it keeps and drops.
 * @module
 */
import type { PlaygroundState } from './state.js';

export const SAMPLE_EXPRESSION = 'tcp.dstport in {80 443} and not ip.src in $svc.anonymizer';

export const SAMPLE_RULESET = JSON.stringify(
  {
    name: 'edge firewall',
    kind: 'root',
    phase: 'network_transit',
    rules: [
      { ref: 'office-ssh', description: 'ssh from the office', action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.src in $office and tcp.dstport == 22' },
      { ref: 'no-telnet-smb', description: 'telnet and smb', action: 'block', expression: 'tcp.dstport in {23 445}' },
      { ref: 'no-ssh', description: 'ssh from anywhere else', action: 'block', expression: 'tcp.dstport == 22' },
      { ref: 'anonymizers', description: 'no web from anonymizers', action: 'block', expression: 'tcp.dstport in {80 443} and ip.src in $svc.anonymizer' },
      { ref: 'no-sip', description: 'sip', action: 'block', expression: 'udp.dstport in {5060 5061}' },
    ],
  },
  null,
  2,
);

/** One list a line: edited in a textarea, read as JSON. */
export const SAMPLE_LISTS = ['{', '  "svc.anonymizer": ["198.51.100.0/24"],', '  "office": ["203.0.113.0/26"]', '}'].join('\n');

export const SAMPLE_FIELDS = ['ip.src', 'ip.dst', 'ip.proto', 'tcp.dstport', 'udp.dstport'];

export const SAMPLE_PACKETS: Record<string, string>[] = [
  { 'ip.src': '192.0.2.1', 'ip.dst': '203.0.113.80', 'ip.proto': 'tcp', 'tcp.dstport': '443' },
  { 'ip.src': '198.51.100.7', 'ip.dst': '203.0.113.80', 'ip.proto': 'tcp', 'tcp.dstport': '443' },
  { 'ip.src': '203.0.113.5', 'ip.dst': '203.0.113.22', 'ip.proto': 'tcp', 'tcp.dstport': '22' },
  { 'ip.src': '192.0.2.9', 'ip.dst': '203.0.113.53', 'ip.proto': 'udp', 'udp.dstport': '5060' },
];

export const SAMPLE_FILTER = JSON.stringify(
  {
    where: {
      and: [
        { key: 'EdgeResponseStatus', operator: 'geq', value: 500 },
        { or: [{ key: 'ClientRequestHost', operator: '!eq', value: 'health.example.com' }, { key: 'ClientCountry', operator: 'in', value: ['de', 'fr'] }] },
      ],
    },
  },
  null,
  2,
);

export const SAMPLE_LINES = [
  { ClientIP: '192.0.2.10', ClientRequestHost: 'www.example.com', EdgeResponseStatus: 503, ClientCountry: 'us' },
  { ClientIP: '192.0.2.11', ClientRequestHost: 'www.example.com', EdgeResponseStatus: 200, ClientCountry: 'us' },
  { ClientIP: '192.0.2.12', ClientRequestHost: 'health.example.com', EdgeResponseStatus: 502, ClientCountry: 'us' },
  { ClientIP: '192.0.2.13', ClientRequestHost: 'health.example.com', EdgeResponseStatus: 500, ClientCountry: 'de' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

/** Requests for HTTP phases (NDJSON request objects): one a rule on the path matches, one a POST, one neither. */
export const SAMPLE_REQUESTS = [
  { method: 'GET', url: 'https://example.com/admin/users', headers: [['User-Agent', 'curl/8.5.0']], clientIp: '198.51.100.7' },
  { method: 'POST', url: 'https://example.com/login?next=%2F', headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'user=alice&password=x', clientIp: '203.0.113.9' },
  { method: 'GET', url: 'https://example.com/', headers: [['Accept-Language', 'fr-CH, en;q=0.8']], clientIp: '192.0.2.1', response: { status: 200, headers: [['Content-Type', 'text/html']] } },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

/**
 * The diff tab's change to the sample ruleset, as a reviewer would want it explained: RDP joins the
 * blocked ports, the SIP rule keeps only its TLS port (so plain SIP, one of the sample packets, is no
 * longer blocked), and the office's rule also takes its web traffic (allowed either way: a rule-only change).
 */
export const SAMPLE_RULESET_CHANGED = SAMPLE_RULESET.replace('tcp.dstport in {23 445}', 'tcp.dstport in {23 445 3389}')
  .replace('udp.dstport in {5060 5061}', 'udp.dstport == 5061')
  .replace('ip.src in $office and tcp.dstport == 22', 'ip.src in $office and tcp.dstport in {22 443}');

/** The state of a first visit. */
export function defaultState(): PlaygroundState {
  return {
    tab: 'rules',
    mode: 'expression',
    phase: 'network_transit',
    requests: SAMPLE_REQUESTS,
    expression: SAMPLE_EXPRESSION,
    ruleset: SAMPLE_RULESET,
    lists: SAMPLE_LISTS,
    fields: [...SAMPLE_FIELDS],
    packets: SAMPLE_PACKETS.map((p) => ({ ...p })),
    dataset: 'http_requests',
    filter: SAMPLE_FILTER,
    lines: SAMPLE_LINES,
    diffOld: SAMPLE_RULESET,
    diffNew: SAMPLE_RULESET_CHANGED,
  };
}
