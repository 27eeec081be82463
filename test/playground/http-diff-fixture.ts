/** An HTTP-phase change for the diff tab's tests (logic and browser), and Logpush lines to count it over. */
const phase = 'http_request_firewall_custom';

/** Before: the admin pages blocked. */
export const HTTP_DIFF_OLD = JSON.stringify({ name: 'waf', kind: 'zone', phase, rules: [{ ref: 'admin', action: 'block', expression: 'http.request.uri.path eq "/admin/users"' }] }, null, 2);

/** After: the admin pages challenged instead, and POSTs blocked. */
export const HTTP_DIFF_NEW = JSON.stringify(
  {
    name: 'waf',
    kind: 'zone',
    phase,
    rules: [
      { ref: 'admin', action: 'managed_challenge', expression: 'http.request.uri.path eq "/admin/users"' },
      { ref: 'posts', action: 'block', expression: 'http.request.method eq "POST"' },
    ],
  },
  null,
  2,
);

/** Four Logpush http_requests lines: two POSTs (lines 2 and 4). */
export const LOGPUSH_LINES = [
  { ClientRequestHost: 'example.com', ClientRequestMethod: 'GET', ClientRequestURI: '/', ClientIP: '192.0.2.1', RayID: 'a1' },
  { ClientRequestHost: 'example.com', ClientRequestMethod: 'POST', ClientRequestURI: '/login', ClientIP: '198.51.100.7', RayID: 'a2' },
  { ClientRequestHost: 'example.com', ClientRequestMethod: 'GET', ClientRequestURI: '/docs', ClientIP: '203.0.113.9', RayID: 'a3' },
  { ClientRequestHost: 'example.com', ClientRequestMethod: 'POST', ClientRequestURI: '/comment', ClientIP: '192.0.2.1', RayID: 'a4' },
]
  .map((l) => JSON.stringify(l))
  .join('\n');
