import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LOGPUSH_CODES } from '../../src/logpush/index.js';
import { DATASETS } from '../../src/logpush/datasets/index.js';

const SRC = join(__dirname, '../../src/logpush');

describe('the Logpush code table', () => {
  const source = readdirSync(SRC).filter((f) => f.endsWith('.ts') && f !== 'codes.ts').map((f) => readFileSync(join(SRC, f), 'utf8')).join('\n');
  const emitted = new Set([...source.matchAll(/\b(?:diag\(|\? )'([a-z0-9-]+)'/g)].map((m) => m[1]!));
  it('has a kebab-case id, a severity and a one-line doc per row', () => {
    for (const [code, info] of Object.entries(LOGPUSH_CODES)) {
      expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(['error', 'warning', 'info', 'hint']).toContain(info.severity);
      expect(info.doc).not.toContain('\n');
      expect(info.doc.length).toBeGreaterThan(10);
    }
  });
  it('every code the sources emit is a row, and every row is emitted somewhere', () => {
    for (const c of emitted) expect(Object.keys(LOGPUSH_CODES)).toContain(c);
    for (const c of Object.keys(LOGPUSH_CODES)) expect(source).toContain(`'${c}'`);
  });
});

describe('dataset catalogs', () => {
  // Field counts of every dataset page read (cloudflare-docs, revisions in src/logpush/datasets/source/),
  // written out so that a lost or doubled page or field fails here.
  const ZONE = { account_abuse_protection_events: 19, dns_logs: 9, firewall_events: 43, http_requests: 109, spectrum_events: 31, websocket_analytics: 17, zaraz_events: 7 };
  const ACCOUNT = {
    access_requests: 15, audit_logs: 15, audit_logs_v2: 23, biso_user_actions: 9, device_posture_results: 18, dex_application_tests: 72,
    dex_device_state_events: 60, dlp_forensic_copies: 8, dns_firewall_logs: 19, email_security_alerts: 32, email_security_post_delivery_events: 21,
    firewall_events: 45, gateway_dns: 82, gateway_http: 60, gateway_network: 34, ipsec_logs: 7, magic_bgp_logs: 6, magic_ids_detections: 12,
    mcp_portal_logs: 19, mnm_flow_logs: 24, network_analytics_logs: 84, sinkhole_http_logs: 17, ssh_logs: 18, turnstile_events: 13,
    warp_config_changes: 11, warp_toggle_changes: 9, websocket_analytics: 19, workers_trace_events: 13, zero_trust_network_sessions: 47,
  };
  it('embed every zone- and account-scoped dataset of the docs with its field count', async () => {
    const { ZONE_DATASETS, ACCOUNT_DATASETS, DATASET_SCOPES, getDataset } = await import('../../src/logpush/index.js');
    expect(Object.fromEntries([...ZONE_DATASETS].map(([k, d]) => [k, d.fields.length]))).toEqual(ZONE);
    expect(Object.fromEntries([...ACCOUNT_DATASETS].map(([k, d]) => [k, d.fields.length]))).toEqual(ACCOUNT);
    for (const d of ZONE_DATASETS.values()) expect(d.scope).toBe('zone');
    for (const d of ACCOUNT_DATASETS.values()) expect(d.scope).toBe('account');
    expect(DATASETS.size).toBe(new Set([...Object.keys(ZONE), ...Object.keys(ACCOUNT)]).size);
    expect(DATASET_SCOPES.get('firewall_events')).toEqual(['zone', 'account']);
    expect(DATASET_SCOPES.get('gateway_dns')).toEqual(['account']);
    // A name of both scopes: each scope has its own fields; no scope means the zone one.
    expect(getDataset('firewall_events', 'account')!.byName.has('ZoneName')).toBe(true);
    expect(getDataset('firewall_events', 'zone')!.byName.has('ZoneName')).toBe(false);
    expect(getDataset('firewall_events')!.scope).toBe('zone');
    expect(getDataset('gateway_dns', 'zone')).toBeUndefined();
    expect(DATASETS.get('http_requests')!.byName.get('EdgeResponseStatus')!.type).toBe('int');
    expect(DATASETS.get('http_requests')!.byName.get('EdgeStartTimestamp')!.type).toBe('int_or_string');
    expect(DATASETS.get('http_requests')!.byName.get('CacheResponseStatus')!.deprecated).toBe(true);
    expect(DATASETS.get('firewall_events')!.byName.get('Metadata')!.type).toBe('object');
    expect(getDataset('gateway_dns')!.byName.get('ResourceRecords')!.type).toBe('array_object');
    expect(getDataset('dex_device_state_events')!.byName.get('CPUPercentage')!.type).toBe('float');
    expect(DATASETS.get('http_requests')!.byName.get('__proto__')).toBeUndefined();
  });
});

describe('docs/logpush.md', () => {
  const doc = readFileSync(join(__dirname, '../../docs/logpush.md'), 'utf8');
  it('shows the operator table exactly as the data table holds it', async () => {
    const { OPERATORS } = await import('../../src/logpush/index.js');
    const cols = ['string', 'int', 'bool', 'array', 'object'];
    for (const o of OPERATORS) {
      const row = `| \`${o.name}\` | ${o.meaning} | ${cols.map((c) => ((o.kinds as readonly string[]).includes(c) ? 'yes' : '—')).join(' | ')} |`;
      expect(doc).toContain(row);
    }
  });
  it('mentions every diagnostic code (by name or by its family prefix)', () => {
    for (const c of Object.keys(LOGPUSH_CODES)) {
      const parts = c.split('-');
      const families = [`${parts[0]}-*`, `${parts[0]}-${parts[1]}-*`];
      expect(doc.includes(`\`${c}\``) || families.some((f) => doc.includes(`\`${f}\``))).toBe(true);
    }
  });
});

describe('browser safety', () => {
  it('src/logpush imports no node: module and uses no Node globals', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (e.name.endsWith('.ts')) files.push(join(d, e.name));
      }
    };
    walk(SRC);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/from ['"]node:|require\(|\bBuffer\b|\bprocess\.|__dirname/);
    }
  });
});
