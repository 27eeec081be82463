/**
 * Lists of every kind the service has (the docs' "Custom lists": IP, ASN and hostname lists; Bulk Redirects'
 * redirect lists): each goes with its fields, a list of the wrong kind is an error naming both, and
 * membership is decided alike by the interpreter and both compiled forms.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkExpression, compileExpression, evaluateExpression, HostnameSet, HTTP_SCHEME, LIST_KIND_NAMES, LIST_KINDS, RedirectSet, type ListItems,
} from '../../src/expression/index.js';

const LISTS: ListItems = {
  office: ['192.0.2.0/24'],
  hosts: { kind: 'hostname', items: ['example.com', '*.example.org', 'API.Example.net'] },
  asns: { kind: 'asn', items: [13335, '64512'] },
  redirects: { kind: 'redirect', items: [{ redirect: { source_url: 'example.com/old', target_url: 'https://example.com/new', subpath_matching: true } }, 'example.net/a?x=1'] },
};

const http = (phase?: string) => ({ scheme: HTTP_SCHEME, lists: LISTS, ...(phase ? { phase } : {}) });
const codes = (text: string, phase?: string) => checkExpression(text, http(phase)).diagnostics.map((d) => d.code);

describe('list kinds', () => {
  it('each kind goes with the fields the docs give it', () => {
    expect(codes('ip.src in $office')).toEqual([]);
    expect(codes('http.host in $hosts')).toEqual([]);
    expect(codes('ip.src.asnum in $asns')).toEqual([]);
    expect(codes('http.request.full_uri in $redirects', 'http_request_redirect')).toEqual([]);
    // The table is what the checker reads.
    expect(LIST_KIND_NAMES).toEqual(['ip', 'asn', 'hostname', 'redirect']);
    expect(LIST_KINDS.hostname.fields).toEqual(['http.host']);
  });

  it('a list of the wrong kind is an error naming both kinds', () => {
    const d = checkExpression('ip.src in $hosts', http()).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['list-kind-mismatch']);
    expect(d[0]!.message).toBe('$hosts is a hostname list, but ip.src takes IP lists; hostname lists go with http.host');
    expect(checkExpression('http.host in $office', http()).diagnostics[0]!.message).toBe('$office is an IP list, but http.host takes hostname lists; IP lists go with IP fields');
    expect(codes('ip.src.asnum in $hosts')).toEqual(['list-kind-mismatch']);
    expect(codes('http.request.full_uri in $redirects', 'http_request_firewall_custom')).toEqual(['list-kind-mismatch']);
    expect(codes('http.user_agent in $hosts')).toEqual(['operator-type-mismatch']);
  });

  it('a list not given is an empty list of the kind its field takes (said, not refused)', () => {
    const r = compileExpression('http.host in $partners', { scheme: HTTP_SCHEME });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['list-not-provided']);
    expect(r.matcher!({ 'http.host': 'example.com' })).toBe(false);
    expect(compileExpression('ip.src.asnum in $bad_asns', { scheme: HTTP_SCHEME }).diagnostics.map((d) => d.code)).toEqual(['list-not-provided']);
  });

  it('items that are not of the kind are reported where the list is used', () => {
    const d = checkExpression('http.host in $h', { scheme: HTTP_SCHEME, lists: { h: { kind: 'hostname', items: ['ok.example', 'https://x.example/path'] } } }).diagnostics;
    expect(d.map((x) => x.code)).toEqual(['invalid-list-item']);
    expect(d[0]!.message).toContain('item 1 of list $h');
    const k = checkExpression('http.host in $h', { scheme: HTTP_SCHEME, lists: { h: { kind: 'hostnames' as never, items: [] } } }).diagnostics;
    expect(k[0]!.message).toContain('a list\'s kind is ip, asn, hostname, redirect');
  });

  it('hostnames match exactly or, after *., as subdomains, whatever the case', () => {
    const s = new HostnameSet(['example.com', '*.example.org']);
    expect(s.has('example.com')).toBe(true);
    expect(s.has('EXAMPLE.com')).toBe(true);
    expect(s.has('www.example.com')).toBe(false);
    expect(s.has('www.example.org')).toBe(true);
    expect(s.has('a.b.example.org')).toBe(true);
    expect(s.has('example.org')).toBe(false);
    expect(s.has('badexample.org')).toBe(false);
  });

  it('redirect sources match host and path, subpaths and subdomains only when the item says so, a query when it gives one', () => {
    const s = new RedirectSet([
      { host: 'example.com', path: '/old', includeSubdomains: false, subpathMatching: true },
      { host: 'example.net', path: '/a', query: 'x=1', includeSubdomains: true, subpathMatching: false },
    ]);
    expect(s.has('https://example.com/old')).toBe(true);
    expect(s.has('http://example.com/old/page?q=2')).toBe(true);
    expect(s.has('https://example.com/older')).toBe(false);
    expect(s.has('https://www.example.com/old')).toBe(false);
    expect(s.has('https://www.example.net/a?x=1')).toBe(true);
    expect(s.has('https://example.net/a?x=2')).toBe(false);
    expect(s.has('https://example.net/a/b?x=1')).toBe(false);
  });

  it('the interpreter and both compiled forms agree on every kind', () => {
    const texts = ['http.host in $hosts', 'ip.src.asnum in $asns', 'not http.host in $hosts and ip.src in $office', 'http.request.full_uri in $redirects'];
    const host = fc.constantFrom('example.com', 'www.example.org', 'example.org', 'api.example.net', 'x.test', 'EXAMPLE.COM');
    fc.assert(
      fc.property(fc.constantFrom(...texts), host, fc.constantFrom(13335, 64512, 1, 0), fc.constantFrom('192.0.2.9', '198.51.100.1'), fc.constantFrom('/old', '/old/x', '/a', '/'), (text, h, asn, ip, path) => {
        const packet = { 'http.host': h, 'ip.src.asnum': asn, 'ip.src': ip, 'http.request.full_uri': `https://${h}${path}` };
        const phase = text.includes('full_uri') ? 'http_request_redirect' : undefined;
        const generated = compileExpression(text, http(phase));
        const closures = compileExpression(text, { ...http(phase), codegen: false });
        const want = evaluateExpression(generated.checked!, packet);
        expect(generated.matcher!(packet)).toBe(want);
        expect(closures.matcher!(packet)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });
});
