/**
 * Rules whose file names no phase (a bare array of rules, a PUT body, `.rules` lines) are read as the seed's
 * network_transit rules: an HTTP field there says so and how to give the phase, and `--phase` gives it.
 */
import { describe, expect, it } from 'vitest';
import { lintText } from '../../src/lint/index.js';

const RULES = JSON.stringify([{ action: 'block', expression: 'http.user_agent contains "bot" and ip.src in {192.0.2.0/24}' }], null, 2);

describe('lint --phase', () => {
  it('without a phase, an HTTP field is an error that names the missing phase (not a did-you-mean)', async () => {
    const { diagnostics } = await lintText(RULES, 'json', true, {}, 'rules.json');
    const d = diagnostics.find((x) => x.code === 'unknown-field')!;
    expect(d.message).toContain('http.user_agent is a field of HTTP requests, but this ruleset names no phase');
    expect(d.fix).toBeUndefined();
  });

  it('--phase reads bodies and expressions that name none with that phase; a body with its own phase keeps it', async () => {
    expect((await lintText(RULES, 'json', true, { phase: 'http_request_firewall_custom' }, 'rules.json')).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect((await lintText('http.host eq "a"\n', 'rules', true, { phase: 'http_request_firewall_custom' }, 'a.rules')).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const own = JSON.stringify({ name: 'n', kind: 'root', phase: 'magic_transit', rules: [{ action: 'block', expression: 'http.host eq "a"' }] });
    expect((await lintText(own, 'json', true, { phase: 'http_request_firewall_custom' }, 'own.json')).diagnostics.map((d) => d.code)).toContain('rule-field-phase');
  });
});
