/**
 * The managed lists: one catalog (MANAGED_LIST_CATALOG) that the checker, completion and docs/fields.md
 * read; the HTTP-only lists (open proxies, VPNs) are names of the HTTP phases and unknown in network
 * rules; their items are optional inputs of a simulation, as account lists are.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkExpression, compileExpression, HTTP_SCHEME, MANAGED_LIST_CATALOG, MANAGED_LISTS, managedListsFor } from '../../src/expression/index.js';
import { completeExpression } from '../../src/language/index.js';
import { simulateRequests } from '../../src/http/index.js';

const docs = readFileSync(new URL('../../docs/fields.md', import.meta.url), 'utf8');

describe('the managed-list catalog', () => {
  it("holds the docs' five Managed IP Lists, the network three of them", () => {
    expect(Object.keys(MANAGED_LIST_CATALOG).sort()).toEqual(['anonymizer', 'botnetcc', 'malware', 'open_proxies', 'vpn']);
    expect(MANAGED_LISTS).toEqual(Object.keys(MANAGED_LIST_CATALOG));
    expect(managedListsFor(false)).toEqual(['anonymizer', 'botnetcc', 'malware']);
    expect(managedListsFor(true)).toEqual(MANAGED_LISTS);
    for (const l of Object.values(MANAGED_LIST_CATALOG)) expect(l.type).toBe('ip');
  });

  it('is what the checker accepts: HTTP-only lists are unknown in network rules', () => {
    for (const name of MANAGED_LISTS) {
      const http = checkExpression(`ip.src in $cf.${name}`, { scheme: HTTP_SCHEME, serviceToken: 'cf' });
      expect(http.diagnostics.filter((d) => d.severity === 'error'), name).toEqual([]);
      const net = checkExpression(`ip.src in $svc.${name}`);
      expect(net.diagnostics.some((d) => d.code === 'unknown-list'), name).toBe(!managedListsFor(false).includes(name));
    }
    const d = checkExpression('ip.src in $svc.vpn').diagnostics.find((x) => x.code === 'unknown-list')!;
    expect(d.message).toContain('$svc.anonymizer, $svc.botnetcc, $svc.malware');
  });

  it('is what completion offers, per field set', () => {
    const names = (scheme?: typeof HTTP_SCHEME) =>
      completeExpression('ip.src in $', 11, scheme ? { scheme, serviceToken: 'cf' } : { serviceToken: 'cf' })
        .items.map((i) => i.label)
        .filter((l) => l.startsWith('$cf.') || l.startsWith('cf.'))
        .map((l) => l.replace(/^\$?cf\./, ''))
        .sort();
    expect(names(HTTP_SCHEME)).toEqual([...managedListsFor(true)].sort());
    expect(names()).toEqual([...managedListsFor(false)].sort());
  });

  it('is the table of docs/fields.md', () => {
    for (const [name, l] of Object.entries(MANAGED_LIST_CATALOG)) {
      expect(docs).toContain(`| \`$svc.${name}\` | IP | ${l.fieldSets.map((f) => (f === 'http' ? 'HTTP phases' : 'network phases')).join(', ')} | ${l.doc} |`);
    }
  });
});

describe('managed lists as simulation inputs', () => {
  const ruleset = {
    name: 'waf',
    kind: 'zone',
    phase: 'http_request_firewall_custom',
    rules: [
      { action: 'block', expression: 'ip.src in $cf.open_proxies' },
      { action: 'managed_challenge', expression: 'ip.src in $cf.vpn or ip.src in $cf.anonymizer' },
    ],
  } as never;
  const requests = ['192.0.2.7', '198.51.100.9', '203.0.113.1'].map((clientIp) => ({ method: 'GET', url: 'https://example.com/', headers: [], clientIp }));

  it('decide requests by the items given', () => {
    const r = simulateRequests(ruleset, requests, { serviceToken: 'cf', lists: { 'cf.open_proxies': ['192.0.2.0/24'], 'cf.vpn': ['198.51.100.0/24'] } });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.results.map((x) => x.verdict)).toEqual(['block', 'managed_challenge', 'allow']);
  });

  it('match nothing when not given, and say so', () => {
    const r = simulateRequests(ruleset, requests, { serviceToken: 'cf' });
    expect(r.results.map((x) => x.verdict)).toEqual(['allow', 'allow', 'allow']);
    const c = compileExpression('ip.src in $cf.vpn', { scheme: HTTP_SCHEME, serviceToken: 'cf' });
    expect(c.diagnostics.map((d) => d.code)).toEqual(['list-not-provided']);
  });
});
