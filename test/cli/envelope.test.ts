/** `rulekit validate --format envelope`: the CLI answers in the service's envelope, as the server will. */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numericCode } from '../../src/index.js';
import { CLI } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-envelope-'));

function validate(body: string) {
  const path = join(dir, `body-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, body);
  const r = spawnSync(process.execPath, [CLI, 'validate', path, '--format', 'envelope'], { encoding: 'utf8' });
  return { code: r.status, envelope: JSON.parse(r.stdout) };
}

describe('rulekit validate --format envelope', () => {
  it('errors: success false, result null, entries with numeric code, pointer and the diagnostic', () => {
    const { code, envelope } = validate(JSON.stringify({ name: 'a', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'ip.src == 10.0.0.0/8' }] }));
    expect(code).toBe(1);
    expect(envelope.success).toBe(false);
    expect(envelope.result).toBeNull();
    expect(envelope.errors).toHaveLength(1);
    expect(envelope.errors[0]).toMatchObject({
      code: numericCode('cidr-outside-set'),
      source: { pointer: '/rules/0/expression' },
      meta: { code: 'cidr-outside-set', severity: 'error', rangeIn: 'value', range: { start: 10, end: 20 } },
    });
    expect(envelope.errors[0].message).toContain('ip.src in {10.0.0.0/8}');
  });

  it('a valid body comes back as the result; warnings go to messages', () => {
    const body = { name: 'a', kind: 'root', phase: 'network_transit', rules: [{ action: 'block', expression: 'ip.geoip.country == "BR"' }] };
    const { code, envelope } = validate(JSON.stringify(body));
    expect(code).toBe(0);
    expect(envelope.success).toBe(true);
    expect(envelope.errors).toEqual([]);
    expect(envelope.result).toEqual(body);
    expect(envelope.messages.map((m: { meta: { code: string } }) => m.meta.code)).toContain('deprecated-field');
  });

  it('takes the API’s kinds (custom, managed) and warns of an action_parameters member it does not know, at its pointer', () => {
    const body = { name: 'a', kind: 'custom', phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'http.host eq "a"', action_parameters: { respons: {} } }] };
    const { code, envelope } = validate(JSON.stringify(body));
    expect(code).toBe(0);
    expect(envelope.errors).toEqual([]);
    const unknown = envelope.messages.find((m: { meta: { code: string } }) => m.meta.code === 'rule-action-parameter-unknown');
    expect(unknown).toMatchObject({ source: { pointer: '/rules/0/action_parameters/respons' }, meta: { severity: 'warning' } });
    expect(unknown.message).toContain('did you mean "response"?');
    expect(validate(JSON.stringify({ ...body, kind: 'managed', rules: [] })).code).toBe(0);
  });

  it('malformed JSON is an error entry, not a crash', () => {
    const { code, envelope } = validate('{"name": ');
    expect(code).toBe(1);
    expect(envelope).toMatchObject({ success: false, result: null, messages: [] });
    expect(envelope.errors[0].meta.code).toBe('ruleset-invalid-json');
  });
});
