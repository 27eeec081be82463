/**
 * The domain table against the field tables: every Int field of the network and HTTP schemes has a row,
 * no row names a field that is not an Int, and where a field has a literal range (network header
 * fields) its domain is that range.
 */
import { describe, expect, it } from 'vitest';
import { HTTP_FIELDS, INT_FIELD_DOMAINS, NETWORK_FIELDS } from '../../src/index.js';

const all = [...NETWORK_FIELDS, ...HTTP_FIELDS];

describe('INT_FIELD_DOMAINS', () => {
  it('has a row for every Int field of both schemes, and the field carries it', () => {
    const missing = all.filter((f) => f.type === 'Int' && !INT_FIELD_DOMAINS[f.name]).map((f) => f.name);
    expect(missing).toEqual([]);
    for (const f of all.filter((x) => x.type === 'Int')) {
      const row = INT_FIELD_DOMAINS[f.name]!;
      expect(f.domain, f.name).toEqual({ ...(row.min !== undefined ? { min: row.min } : {}), ...(row.max !== undefined ? { max: row.max } : {}) });
    }
  });

  it('names only Int fields, each with a reason and bounds in order', () => {
    const byName = new Map(all.map((f) => [f.name, f]));
    for (const [name, row] of Object.entries(INT_FIELD_DOMAINS)) {
      expect(byName.get(name)?.type, name).toBe('Int');
      expect(row.why.length, name).toBeGreaterThan(3);
      if (row.min !== undefined && row.max !== undefined) expect(row.min, name).toBeLessThanOrEqual(row.max);
      for (const b of [row.min, row.max]) if (b !== undefined) expect(Number.isSafeInteger(b), name).toBe(true);
    }
  });

  it('a field with a literal range has that range as its domain', () => {
    for (const f of all.filter((x) => x.range)) expect([f.domain?.min, f.domain?.max], f.name).toEqual([...f.range!]);
  });

  it('holds the documented facts', () => {
    expect(INT_FIELD_DOMAINS['ip.src.asnum']).toMatchObject({ min: 0, max: 4294967295 });
    expect(INT_FIELD_DOMAINS['cf.bot_management.score']).toMatchObject({ min: 0, max: 99 });
    expect(INT_FIELD_DOMAINS['cf.threat_score']).toMatchObject({ min: 0, max: 100 });
    expect(INT_FIELD_DOMAINS['ip.ttl']).toMatchObject({ min: 0, max: 255 });
    expect(INT_FIELD_DOMAINS['tcp.dstport']).toMatchObject({ min: 0, max: 65535 });
  });
});
