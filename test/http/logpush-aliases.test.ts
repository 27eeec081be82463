/**
 * Deprecated field names over Logpush lines: `ip.geoip.asnum` and `ip.geoip.country` are read from their
 * targets (`ip.src.asnum` from ClientASN, `ip.src.country` from ClientCountry), so a line that carries the
 * target's Logpush field does not lack them — in process (logpushRecord) and in the SQL request table alike.
 */
import { describe, expect, it } from 'vitest';
import { logpushRecord } from '../../src/http/index.js';
import { dialectOf, logpushRequestsSql } from '../../src/sql/index.js';

const line = { RayID: 'r1', ClientRequestHost: 'a.example', ClientRequestMethod: 'GET', ClientRequestURI: '/', EdgeStartTimestamp: '2026-01-01T00:00:00Z', ClientASN: 13335, ClientCountry: 'de' };

describe('aliases over Logpush lines', () => {
  it('in process: not missing when the line has the target\'s Logpush field, missing (naming it) when not', () => {
    const fields = new Set(['ip.geoip.asnum', 'ip.geoip.country']);
    expect([...logpushRecord(line, fields).missing.keys()]).toEqual([]);
    const { ClientASN: _a, ClientCountry: _c, ...bare } = line;
    expect(Object.fromEntries(logpushRecord(bare, fields).missing)).toEqual({ 'ip.geoip.asnum': ['ClientASN'], 'ip.geoip.country': ['ClientCountry'] });
  });

  it('in SQL: an alias needs its target\'s Logpush field', () => {
    const t = logpushRequestsSql(dialectOf('duckdb'), ['ip.geoip.asnum', 'ip.geoip.country'], '(SELECT 1) AS lines', { checked: true });
    expect(t.needs.get('ip.geoip.asnum')).toEqual(['ClientASN']);
    expect(t.needs.get('ip.geoip.country')).toEqual(['ClientCountry']);
  });
});
