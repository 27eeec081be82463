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
  it('embed the four reference datasets with their documented counts', () => {
    expect([...DATASETS.keys()].sort()).toEqual(['dns_logs', 'firewall_events', 'http_requests', 'spectrum_events']);
    expect(DATASETS.get('http_requests')!.fields).toHaveLength(103);
    expect(DATASETS.get('firewall_events')!.fields).toHaveLength(39);
    expect(DATASETS.get('dns_logs')!.fields).toHaveLength(9);
    expect(DATASETS.get('spectrum_events')!.fields).toHaveLength(31);
    expect(DATASETS.get('http_requests')!.byName.get('EdgeResponseStatus')!.type).toBe('int');
    expect(DATASETS.get('http_requests')!.byName.get('EdgeStartTimestamp')!.type).toBe('int_or_string');
    expect(DATASETS.get('http_requests')!.byName.get('CacheResponseStatus')!.deprecated).toBe(true);
    expect(DATASETS.get('firewall_events')!.byName.get('Metadata')!.type).toBe('object');
    expect(DATASETS.get('http_requests')!.byName.get('__proto__')).toBeUndefined();
  });
});

describe('docs/logpush.md', () => {
  const doc = readFileSync(join(__dirname, '../../docs/logpush.md'), 'utf8');
  it('shows the operator table exactly as the data table holds it', async () => {
    const { OPERATORS } = await import('../../src/logpush/index.js');
    const cols = ['string', 'int', 'bool', 'array', 'object', 'float'];
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
