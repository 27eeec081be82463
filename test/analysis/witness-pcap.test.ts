/**
 * Witness packets as a capture: the frames decode back to the witness's fields (rulekit's decoder and
 * tshark, with good checksums), and `rulekit analyze --witness-pcap` writes a capture whose frames
 * `rulekit simulate` decides as the analysis said.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePacket, LINKTYPE_RAW, packetToIpFrame, writePcap } from '../../src/capture/index.js';
import AjvDraft04 from 'ajv-draft-04';
import { needsTool } from '../helpers/tools.js';
import { CLI } from '../helpers/cli.js';

// ajv-draft-04 is CommonJS with its class on `default`: the official SARIF 2.1.0 schema is draft-04.
const Ajv = ((AjvDraft04 as unknown as { default?: unknown }).default ?? AjvDraft04) as new (options: object) => { compile(schema: object): ((v: unknown) => boolean) & { errors?: unknown } };

const dir = mkdtempSync(join(tmpdir(), 'rulekit-witness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PACKETS = [
  { 'ip.src': '10.1.2.3', 'tcp.dstport': 22, 'tcp.flags.syn': true, 'ip.ttl': 7 },
  { 'ip.src': '2001:db8::5', 'udp.dstport': 53, 'udp.srcport': 1234 },
  { 'ip.dst': '192.0.2.9', 'ip.proto': 'icmp', 'icmp.type': 8, 'icmp.code': 0 },
  { 'ip.src': '2001:db8::7', 'icmp.type': 128 },
  { 'ip.src': '10.0.0.1', 'tcp.dstport': 443, 'ip.len': 100 },
];

describe('witness packets as frames', () => {
  it('decode back to the fields they were made from', () => {
    for (const p of PACKETS) {
      const { frame, problems } = packetToIpFrame(p);
      expect(problems).toEqual([]);
      const back = decodePacket({ linkType: LINKTYPE_RAW, data: frame! }).packet as Record<string, unknown>;
      for (const [k, v] of Object.entries(p)) expect(back[k], `${k} of ${JSON.stringify(p)}`).toEqual(v);
    }
  });

  it('name what the bytes cannot carry, and refuse addresses of two families', () => {
    expect(packetToIpFrame({ 'ip.src.country': 'DE', 'tcp.dstport': 1 }).problems[0]).toMatch(/ip\.src\.country.*geoip/);
    expect(packetToIpFrame({ 'ip.src': '10.0.0.1', 'ip.dst': '2001:db8::1' }).frame).toBeUndefined();
  });

  needsTool('tshark')('tshark reads them with good IP, TCP and UDP checksums', () => {
    const path = join(dir, 'frames.pcap');
    writeFileSync(path, writePcap(PACKETS.map((p) => packetToIpFrame(p).frame!)));
    const r = spawnSync('tshark', ['-r', path, '-o', 'ip.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE', '-T', 'fields', '-e', 'tcp.dstport', '-e', 'udp.dstport', '-e', 'icmp.type', '-e', 'icmpv6.type', '-e', 'ip.checksum.status', '-e', 'tcp.checksum.status', '-e', 'udp.checksum.status'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((x) => x.slice(0, 4).join('|'))).toEqual(['22|||', '|53||', '||8|', '|||128', '443|||']);
    // 1 = good; an IPv6 packet has no IP checksum.
    expect(rows.map((x) => x.slice(4).filter(Boolean).every((s) => s === '1'))).toEqual([true, true, true, true, true]);
  });
});

describe('rulekit analyze --witness-pcap', () => {
  it('writes frames that rulekit simulate decides as the analysis said', () => {
    const ruleset = join(dir, 'ruleset.json');
    writeFileSync(ruleset, JSON.stringify({
      name: 'fw', kind: 'root', phase: 'network_transit',
      rules: [
        { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {80 443}' },
        { action: 'block', expression: 'tcp.dstport in {1..1024}' },
        { action: 'block', expression: 'tcp.dstport == 22' },
        { action: 'block', expression: 'udp.dstport == 53 and ip.src in {2001:db8::/32}' },
      ],
    }));
    const pcap = join(dir, 'witnesses.pcap');
    const a = spawnSync(process.execPath, [CLI, 'analyze', ruleset, '--format', 'json', '--witness-pcap', pcap], { encoding: 'utf8' });
    expect(a.status, a.stderr).toBe(0);
    const rules = (JSON.parse(a.stdout) as { rules: { index: number; status: string; decidedBy?: number }[] }).rules;
    expect(rules.map((r) => r.status)).toEqual(['live', 'live', 'shadowed', 'live']);
    expect(a.stderr).toContain('4 witness packet(s) written');
    const s = spawnSync(process.execPath, [CLI, 'simulate', ruleset, pcap, '--format', 'ndjson', '--no-progress'], { encoding: 'utf8' });
    expect(s.status, s.stderr).toBe(0);
    const verdicts = s.stdout.trim().split('\n').map((l) => JSON.parse(l) as { decidedBy?: { index: number }; summary?: unknown }).filter((x) => !('summary' in x));
    // Frame N is the Nth rule's witness: live rules decide their own, the shadowed one is decided by rule 1.
    expect(verdicts.map((v) => v.decidedBy?.index)).toEqual([0, 1, 1, 3]);
    expect(readFileSync(pcap).length).toBeGreaterThan(24);
  });

  it('--format sarif: valid SARIF 2.1.0 with each finding at its place in the file; --format json names the rule', () => {
    const ruleset = join(dir, 'sarif.json');
    const text = '{"rules": [\n  {"action": "block", "expression": "tcp.dstport in {1..1024}"},\n  {"action": "block", "expression": "tcp.dstport == 22"}\n]}\n';
    writeFileSync(ruleset, text);
    const r = spawnSync(process.execPath, [CLI, 'analyze', ruleset, '--format', 'sarif'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const sarif = JSON.parse(r.stdout) as { runs: { results: { ruleId: string; locations: { physicalLocation: { region: { startLine: number; startColumn: number; endColumn: number } } }[] }[] }[] };
    const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as object;
    const validate = new Ajv({ strict: false, validateFormats: false, allErrors: true }).compile(schema);
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const [result] = sarif.runs[0]!.results;
    expect(result!.ruleId).toBe('rule-redundant');
    const col = text.split('\n')[2]!.indexOf('tcp.dstport == 22') + 1;
    expect(result!.locations[0]!.physicalLocation.region).toMatchObject({ startLine: 3, startColumn: col, endColumn: col + 17 });
    const j = spawnSync(process.execPath, [CLI, 'analyze', ruleset, '--format', 'json'], { encoding: 'utf8' });
    expect((JSON.parse(j.stdout) as { findings: { data: { rule: number } }[] }).findings[0]!.data.rule).toBe(1);
  });

  it('an HTTP-phase ruleset is analysed with its fields; --witness-pcap refuses it (its witnesses are requests), exit 2', () => {
    const ruleset = join(dir, 'waf.json');
    writeFileSync(ruleset, JSON.stringify({
      name: 'waf', kind: 'zone', phase: 'http_request_firewall_custom',
      rules: [{ action: 'block', expression: 'http.host eq "a"' }, { action: 'block', expression: 'http.host eq "a"' }, { action: 'block', expression: 'lower(http.host) eq "b"' }],
    }));
    const j = spawnSync(process.execPath, [CLI, 'analyze', ruleset, '--format', 'json'], { encoding: 'utf8' });
    expect(j.status, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout) as { findings: { code: string }[]; rules: { status: string }[] };
    expect(out.rules.map((r) => r.status)).toEqual(['live', 'shadowed', 'unknown']);
    expect(out.findings.map((f) => f.code)).toEqual(['rule-redundant', 'rule-not-analysed']);
    const pcap = join(dir, 'waf.pcap');
    const p = spawnSync(process.execPath, [CLI, 'analyze', ruleset, '--witness-pcap', pcap], { encoding: 'utf8' });
    expect(p.status).toBe(2);
    expect(p.stderr).toContain('witnesses of a http_request_firewall_custom ruleset are HTTP requests');
  });
});
