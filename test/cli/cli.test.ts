/** The `rulekit` command line, run as a user runs it (the shipped bundle dist/bundle/cli.js; npm test builds first). */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { writeSyntheticPcap } from '../../bench/capture-gen.js';
import { needsTool } from '../helpers/tools.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli } from '../helpers/cli.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'capture');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-cli-'));

function run(args: string[], input?: string) {
  return runCli(args, { input });
}

const ruleset = {
  name: 'cli test',
  kind: 'root',
  phase: 'network_transit',
  rules: [
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {443}', description: 'https' },
    { action: 'block', expression: 'tcp.flags.syn and not tcp.flags.ack', description: 'bare syn' },
    { action: 'block', expression: 'udp.dstport in {1..65535}', description: 'all udp' },
  ],
};
const rulesetPath = join(dir, 'ruleset.json');
writeFileSync(rulesetPath, JSON.stringify(ruleset, null, 2));

describe('rulekit CLI', () => {
  it('demo: verdicts and diagnostics', () => {
    const r = run(['demo']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('block    #0 drop anonymizers and botnet C&C');
    expect(r.out).toContain('did you mean tcp.dstport?');
  });

  it('check: exit 1 with rendered diagnostics, 0 when clean, JSON format', () => {
    const bad = run(['check', 'tcp.dstport in {80, 443}']);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('arg1:1:19: error[comma-in-set]');
    expect(run(['check', 'tcp.dstport in {80 443}']).code).toBe(0);
    const json = JSON.parse(run(['check', '--format', 'json', 'tcp.dst_port == 1']).out);
    expect(json[0].diagnostics[0].code).toBe('unknown-field');
    const file = join(dir, 'exprs.txt');
    writeFileSync(file, '# comment\ntcp.dstport == 22\nip.src == 10.0.0.0/8\n');
    const f = run(['check', '-f', file]);
    expect(f.code).toBe(1);
    expect(f.out).toContain('exprs.txt:3:11: error[cidr-outside-set]');
    expect(run(['check']).code).toBe(2);
  });

  it('check --phase: the fields of that phase; an unknown phase is a usage error naming the nearest', () => {
    const http = 'http.host == "example.com"';
    expect(run(['check', http]).code).toBe(1);
    expect(run(['check', '--phase', 'http_request_firewall_custom', http]).code).toBe(0);
    const mixed = run(['check', '--phase', 'http_request_firewall_custom', `${http} and tcp.dstport == 80`]);
    expect(mixed.code).toBe(1);
    expect(mixed.out).toContain('arg1:1:32: error[rule-field-phase]: tcp.dstport is a packet field (the network phases); the http_request_firewall_custom phase reads HTTP request fields');
    expect(run(['check', '--phase', 'magic_transit', http]).out).toContain('error[rule-field-phase]: http.host is a field of HTTP requests');
    const typo = run(['check', '--phase', 'http_request_firewal_custom', http]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('unknown phase "http_request_firewal_custom"; did you mean http_request_firewall_custom?');
  });

  it('validate reads the bodies lint reads: YAML, an array of rules, a Logpush job; Terraform is sent to lint', () => {
    const yaml = join(dir, 'rs.yaml');
    writeFileSync(yaml, 'name: fw\nkind: root\nphase: magic_transit\nrules:\n  - action: block\n    expression: "tcp.dstport in {1, 2}"\n');
    const y = run(['validate', yaml]);
    expect(y.code).toBe(1);
    expect(y.out).toContain('rs.yaml:6:35 /rules/0/expression: error[comma-in-set]');
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, '[{"action": "block", "expression": "ip.src == 10.0.0.0/8"}]');
    expect(run(['validate', rules]).out).toContain('rules.json:1:47 /0/expression: error[cidr-outside-set]');
    const job = join(dir, 'job.json');
    writeFileSync(job, JSON.stringify({ dataset: 'http_requests', destination_conf: 'https://logs.example.com/push', filter: '{"where":{"key":"EdgeResponseStatus","operator":"gte","value":500}}' }));
    const j = run(['validate', '--format', 'json', job]);
    expect(JSON.parse(j.out).map((d: { code: string; pointer: string }) => `${d.pointer} ${d.code}`)).toEqual(['/filter filter-misspelt-operator']);
    const tf = join(dir, 'fw.tf');
    writeFileSync(tf, 'resource "cloudflare_ruleset" "fw" {}\n');
    const t = run(['validate', tf]);
    expect(t.code).toBe(2);
    expect(t.err).toBe(`rulekit: ${tf}: a Terraform file; validate reads one request body (JSON or YAML): use rulekit lint ${tf}\n`);
    const list = join(dir, 'a.rules');
    writeFileSync(list, 'tcp.dstport == 1\n');
    expect(run(['validate', list]).code).toBe(2);
  });

  it('every command prints positions one way, path:line:col then the JSON pointer, coloured only when asked', () => {
    const body = join(dir, 'loc.json');
    writeFileSync(body, JSON.stringify({ name: 'x', kind: 'root', phase: 'magic_transit', rules: [{ action: 'block', expression: 'tcp.dstport in {1, 2}' }] }, null, 2));
    const filter = join(dir, 'loc-filter.json');
    writeFileSync(filter, '{"where": {"key": "EdgeResponseStatus", "operator": "gte", "value": 500}}');
    const lines = join(dir, 'loc.ndjson');
    writeFileSync(lines, '{"EdgeResponseStatus": 500}\n');
    const head = /^(?<path>[^\s:]+):(?<line>\d+):(?<col>\d+)(?: (?<pointer>\/\S*))?: (?:error|warning|info|hint)\[[a-z0-9-]+\]: /m;
    const outputs = {
      check: run(['check', 'tcp.dstport in {1, 2}']).out,
      validate: run(['validate', body]).out,
      lint: spawnSync(process.execPath, [CLI, 'lint', '--no-config', body], { encoding: 'utf8' }).stdout,
      simulate: spawnSync(process.execPath, [CLI, 'simulate', body, '-'], { encoding: 'utf8', input: '{}\n' }).stderr,
      logfilter: spawnSync(process.execPath, [CLI, 'logfilter', filter, lines], { encoding: 'utf8' }).stderr,
    };
    for (const [command, out] of Object.entries(outputs)) {
      const m = head.exec(out);
      expect(m, `${command}: ${out}`).not.toBeNull();
      expect(out, command).not.toMatch(/#\//);
      expect(out, command).not.toContain('\x1b[');
    }
    expect(head.exec(outputs.validate)!.groups).toMatchObject({ line: '8', col: '39', pointer: '/rules/0/expression' });
    expect(head.exec(outputs.logfilter)!.groups).toMatchObject({ line: '1', col: '53', pointer: '/where/operator' });
    // --color colours the severity and the caret; --no-color and NO_COLOR (without --color) do not.
    const red = '\x1b[31merror[comma-in-set]\x1b[0m';
    expect(run(['check', '--color', 'tcp.dstport in {1, 2}']).out).toContain(red);
    expect(run(['validate', '--color', body]).out).toContain(red);
    expect(spawnSync(process.execPath, [CLI, 'simulate', '--color', body, '-'], { encoding: 'utf8', input: '{}\n' }).stderr).toContain(red);
    expect(spawnSync(process.execPath, [CLI, 'logfilter', '--color', filter, lines], { encoding: 'utf8' }).stderr).toContain('\x1b[31merror[filter-misspelt-operator]');
    expect(run(['check', '--no-color', 'tcp.dstport in {1, 2}']).out).not.toContain('\x1b[');
  });

  it('validate: positions in the JSON file', () => {
    expect(run(['validate', rulesetPath]).code).toBe(0);
    const badPath = join(dir, 'bad.json');
    writeFileSync(badPath, JSON.stringify({ ...ruleset, rules: [{ action: 'block', expression: 'ip.src == 10.0.0.0/8' }] }, null, 2));
    const r = run(['validate', badPath]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/bad\.json:\d+:\d+ \/rules\/0\/expression: error\[cidr-outside-set\]/);
    expect(run(['validate', join(dir, 'missing.json')]).code).toBe(2);
  });

  it('simulate: capture summary, NDJSON from stdin, JSON output', () => {
    const r = run(['simulate', rulesetPath, join(FIXTURES, 'mixed-le-usec.pcap')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/0 +skip +https +13 +13/);
    expect(r.out).toContain('packets 31:');
    const nd = run(['simulate', rulesetPath, '-', '--format', 'ndjson'], '{"tcp.dstport":443}\n{"udp.dstport":53}\n');
    const lines = nd.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ index: 0, verdict: 'allow', decidedBy: { index: 0 } });
    expect(lines[1]).toMatchObject({ index: 1, verdict: 'block', decidedBy: { index: 2 } });
    expect(lines[2].summary.packets).toBe(2);
    const json = JSON.parse(run(['simulate', rulesetPath, join(FIXTURES, 'two-interfaces.pcapng'), '--format', 'json']).out);
    expect(json.summary.packets).toBeGreaterThan(0);
    const badRuleset = join(dir, 'badrules.json');
    writeFileSync(badRuleset, JSON.stringify({ ...ruleset, rules: [{ action: 'block', expression: 'tcp.dst_port == 1' }] }));
    expect(run(['simulate', badRuleset, join(FIXTURES, 'mixed-le-usec.pcap')]).code).toBe(1);
  });

  it('export --wireshark', () => {
    expect(run(['export', '--wireshark', 'tcp.dstport in {22 443}']).out.trim()).toBe('tcp.dstport in {22, 443}');
    const r = run(['export', '--wireshark', 'ip.src.country == "BR"']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('no-wireshark-equivalent');
  });
});

describe('rulekit simulate --geoip', () => {
  it('fills country/ASN fields of NDJSON packet lines too', () => {
    const rules = join(dir, 'geo-ruleset.json');
    writeFileSync(rules, JSON.stringify({ rules: [{ action: 'block', expression: 'ip.src.country == "AR" or ip.dst.asnum == 64502', description: 'geo' }] }));
    const input = '{"ip.src":"192.0.2.50"}\n{"ip.src":"198.51.100.1","ip.dst":"192.0.2.54"}\n{"ip.src":"198.51.100.1"}\n';
    const r = run(['simulate', rules, '-', '--geoip', join(FIXTURES, 'geo.csv'), '--format', 'json'], input);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.summary.verdicts).toEqual({ allow: 1, block: 2 });
    expect(json.diagnostics.map((d: { code: string }) => d.code)).not.toContain('simulation-no-geoip');
    const without = JSON.parse(run(['simulate', rules, '-', '--format', 'json'], input).out);
    expect(without.summary.verdicts).toEqual({ allow: 3, block: 0 });
    expect(without.diagnostics.map((d: { code: string }) => d.code)).toContain('simulation-no-geoip');
  });
});

describe('rulekit simulate on worker threads', () => {
  // The source's simulateCommand; its workers run the built dist/simulation/worker.js.
  const sim = async (input: string, threads: number, extra: Record<string, unknown> = {}) => {
    const { simulateCommand } = await import('../../src/cli/simulate.js');
    let out = '';
    const code = await simulateCommand(parallelRulesetPath, input, { format: 'json', progress: false, threads, chunkBytes: 1, examples: '4', ...extra }, (s) => (out += s));
    return { code, out: JSON.parse(out) as unknown };
  };
  const parallelRuleset = {
    rules: [
      { action: 'skip', action_parameters: { ruleset: 'other' }, expression: 'ip.ttl < 100', description: 'non-terminating' },
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'tcp.dstport in {443 80}', description: 'web' },
      { action: 'block', expression: 'ip.src in {10.0.0.0/8 2001:db8::/32} and tcp.flags.syn', description: 'syn from inside' },
      { action: 'block', expression: 'udp.dstport in {1..1023} or ip.proto == "icmp"', description: 'low udp, icmp' },
      { action: 'block', expression: 'ip.dst in {192.0.2.0/24} or ip.ttl == 1', description: 'dst' },
      { action: 'block', expression: 'ip.src.country == "AR" or ip.dst.asnum == 64502', description: 'geo' },
    ],
  };
  const parallelRulesetPath = join(dir, 'parallel-ruleset.json');
  writeFileSync(parallelRulesetPath, JSON.stringify(parallelRuleset));

  it('gives the same summary and diagnostics as one thread: fixture captures', async () => {
    for (const f of ['mixed-le-usec.pcap', 'mixed-be-usec.pcap', 'mixed-nsec.pcap', 'corrupt-record.pcap', 'truncated-end.pcap', 'sll.pcap', 'raw-ip.pcap', 'loopback-null.pcap', 'snaplen.pcap']) {
      const path = join(FIXTURES, f);
      if (!existsSync(path)) continue;
      const one = await sim(path, 0);
      const two = await sim(path, 2);
      expect(two).toEqual(one);
      const geoip = join(FIXTURES, 'geo.csv');
      expect(await sim(path, 2, { geoip })).toEqual(await sim(path, 0, { geoip }));
    }
  });

  it('numeric slots give the summary of packet objects (examples included), on one thread and on workers', async () => {
    // The ruleset without its geo rule: every field is a slot field, so captures are decided on slots.
    const slotsRuleset = { rules: [...parallelRuleset.rules.slice(0, 5), { action: 'block', expression: 'ip.src < 10.0.0.1 or ip.dst >= 2001:db8::5 or sip', description: 'ordering, sip' }] };
    const path = join(dir, 'slots-ruleset.json');
    writeFileSync(path, JSON.stringify(slotsRuleset));
    const { compileRuleset } = await import('../../src/index.js');
    expect(compileRuleset(slotsRuleset as Parameters<typeof compileRuleset>[0]).slotsDecider).toBeDefined();
    const run = async (input: string, threads: number, decoder: 'auto' | 'objects') => {
      const { simulateCommand } = await import('../../src/cli/simulate.js');
      let out = '';
      await simulateCommand(path, input, { format: 'json', progress: false, threads, chunkBytes: 1, examples: '4', decoder }, (x) => (out += x));
      return JSON.parse(out) as { summary: { packets: number; rules: { examples: unknown[] }[] } };
    };
    const gen = join(dir, 'slots-gen.pcap');
    writeSyntheticPcap(gen, 20_000);
    const inputs = [...['mixed-le-usec.pcap', 'vlan.pcap', 'sll2.pcap', 'raw-ipv6.pcap', 'corrupt-record.pcap', 'two-interfaces.pcapng', 'text2pcap.pcapng'].map((f) => join(FIXTURES, f)).filter((f) => existsSync(f)), gen];
    for (const input of inputs) {
      const objects = await run(input, 0, 'objects');
      expect(objects.summary.packets).toBeGreaterThan(0);
      expect(await run(input, 0, 'auto')).toEqual(objects);
      expect(await run(input, 2, 'auto')).toEqual(objects);
    }
    const objects = await run(gen, 0, 'objects');
    expect(objects.summary.rules.some((r) => r.examples.length === 4)).toBe(true);
  });

  it('gives the same summary as one thread: a generated capture in many chunks, a corrupt record, a cut end', async () => {
    const path = join(dir, 'gen.pcap');
    writeSyntheticPcap(path, 40_000);
    const one = await sim(path, 0);
    expect((one.out as { summary: { packets: number } }).summary.packets).toBe(40_000);
    expect(await sim(path, 2)).toEqual(one);
    expect(await sim(path, 1)).toEqual(one);
    // A record header claiming 1 GB in the middle (resynchronisation) and a record cut at the end.
    const bytes = new Uint8Array(readFileSync(path));
    const view = new DataView(bytes.buffer);
    let p = 24;
    for (let i = 0; i < 25_000; i++) p += 16 + view.getUint32(p + 8, true);
    view.setUint32(p + 8, 1 << 30, true);
    const bad = join(dir, 'bad.pcap');
    writeFileSync(bad, bytes.subarray(0, bytes.length - 10));
    const badOne = await sim(bad, 0);
    const diagnostics = (badOne.out as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code);
    expect(diagnostics).toContain('capture-corrupt-record');
    expect(diagnostics).toContain('capture-truncated-record');
    expect(await sim(bad, 2)).toEqual(badOne);
  });
});

describe('rulekit simulate from standard input', () => {
  it('a capture piped in gives the same summary as the file', () => {
    const file = join(FIXTURES, 'mixed-le-usec.pcap');
    const fromFile = JSON.parse(run(['simulate', rulesetPath, file, '--format', 'json']).out);
    const r = spawnSync(process.execPath, [CLI, 'simulate', rulesetPath, '-', '--format', 'json'], { input: readFileSync(file), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fromFile);
    expect(fromFile.summary.packets).toBeGreaterThan(10);
  });

  needsTool('script')('on a terminal, progress goes to stderr: a bar for files, a running count for stdin', () => {
    const big = join(dir, 'progress.pcap');
    // > 4 MB so that a file gets the bar: the same records repeated after one header
    const src = readFileSync(join(FIXTURES, 'mixed-le-usec.pcap'));
    const body = src.subarray(24);
    writeFileSync(big, Buffer.concat([src.subarray(0, 24), ...Array.from({ length: Math.ceil((5 << 20) / body.length) }, () => body)]));
    const tty = (cmd: string) => spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', env: { ...process.env, RULEKIT_THREADS: '0' } }).stdout;
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const fileOut = tty(`${q(process.execPath)} ${q(CLI)} simulate ${q(rulesetPath)} ${q(big)} > /dev/null`);
    expect(fileOut).toMatch(/simulate \[[█░]+\] 100% \| \d+\/\d+ MB \| \d+ packets/);
    const stdinOut = tty(`cat ${q(big)} | ${q(process.execPath)} ${q(CLI)} simulate ${q(rulesetPath)} - > /dev/null`);
    expect(stdinOut).toMatch(/simulate \| \d+ MB read \| \d+ packets/);
    // not a terminal: no progress at all
    expect(run(['simulate', rulesetPath, big]).err).not.toContain('simulate [');
  });
});

describe('rulekit simulate on input that is neither a capture nor NDJSON', () => {
  it('binary data is one clear error (exit 1), not a diagnostic per line', () => {
    const junk = join(dir, 'junk.bin');
    writeFileSync(junk, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)));
    const r = run(['simulate', rulesetPath, junk, '--format', 'json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out) as { diagnostics: { code: string; message: string }[] };
    expect(out.diagnostics.map((d) => d.code)).toEqual(['simulation-unknown-input']);
    expect(out.diagnostics[0]!.message).toContain('neither a pcap/pcapng capture');
    // text that is not JSON stays a per-line diagnostic with its line number
    const text = join(dir, 'text.ndjson');
    writeFileSync(text, '{"tcp.dstport": 443}\nnot json\n');
    const t = JSON.parse(run(['simulate', rulesetPath, text, '--format', 'json']).out) as { diagnostics: { code: string; message: string }[]; summary: { packets: number } };
    expect(t.summary.packets).toBe(1);
    expect(t.diagnostics.map((d) => d.code)).toEqual(['simulation-invalid-packet']);
    expect(t.diagnostics[0]!.message).toContain('line 2');
  });
});
