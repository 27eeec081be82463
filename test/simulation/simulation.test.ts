/**
 * The simulation of files and streams as a library (src/simulation/, `rulekit/node`): every source kind
 * gives the same summary, per-packet results stream in order, progress and cancellation work, and bad
 * input of every kind is one clear diagnostic with the report's `ok` false.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runSimulation, simulation, defaultThreads, PARALLEL_MIN_BYTES, type PacketResult, type SimulationReport } from '../../src/simulation/index.js';
import { simulate } from '../../src/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'capture');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-sim-'));
const ruleset = {
  name: 'fw',
  kind: 'root',
  phase: 'network_transit',
  rules: [
    { action: 'block', expression: 'tcp.dstport in {22 23}', description: 'ssh and telnet' },
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.proto == "udp"' },
    { action: 'block', expression: 'ip.src in {10.0.0.0/8 192.168.0.0/16}' },
  ],
};
const rulesetText = JSON.stringify(ruleset, null, 2);
const pcap = join(FIXTURES, 'mixed-le-usec.pcap');
const pcapBytes = new Uint8Array(readFileSync(pcap));

const summaryOf = (r: SimulationReport) => r.summary;

describe('runSimulation: one summary whatever the source', () => {
  it('a path, bytes, a Node stream, an async iterable of small chunks, on slots and on objects', async () => {
    const byPath = await runSimulation(rulesetText, pcap, { threads: 0 });
    expect(byPath.ok).toBe(true);
    expect(byPath.input).toBe('pcap');
    expect(byPath.decoder).toBe('slots');
    expect(byPath.summary.packets).toBeGreaterThan(5);
    expect(summaryOf(await runSimulation(ruleset as never, pcapBytes, { threads: 0 }))).toEqual(byPath.summary);
    expect(summaryOf(await runSimulation(rulesetText, Readable.from([Buffer.from(pcapBytes)]), {}))).toEqual(byPath.summary);
    async function* dribble() {
      for (let i = 0; i < pcapBytes.length; i += 7) yield pcapBytes.subarray(i, i + 7);
    }
    expect(summaryOf(await runSimulation(rulesetText, dribble(), {}))).toEqual(byPath.summary);
    const objects = await runSimulation(rulesetText, pcap, { threads: 0, decoder: 'objects' });
    expect(objects.decoder).toBe('objects');
    expect(objects.summary).toEqual(byPath.summary);
  });

  it('the modified-pcap magic (0xa1b2cd34, 24-byte record headers) as a path and as a stream', async () => {
    // Rewrite the classic fixture: new magic, each record header followed by 8 more bytes.
    const src = pcapBytes;
    const v = new DataView(src.buffer, src.byteOffset, src.byteLength);
    const le = v.getUint32(0, true) === 0xa1b2c3d4;
    const parts: Uint8Array[] = [];
    const head = src.slice(0, 24);
    new DataView(head.buffer).setUint32(0, 0xa1b2cd34, le);
    parts.push(head);
    for (let p = 24; p + 16 <= src.length; ) {
      const caplen = v.getUint32(p + 8, le);
      parts.push(src.subarray(p, p + 16), new Uint8Array(8), src.subarray(p + 16, p + 16 + caplen));
      p += 16 + caplen;
    }
    const modified = Buffer.concat(parts);
    const file = join(dir, 'modified.pcap');
    writeFileSync(file, modified);
    const expected = (await runSimulation(rulesetText, pcap, { threads: 0 })).summary;
    const byPath = await runSimulation(rulesetText, file, { threads: 0 });
    expect(byPath.input).toBe('pcap');
    expect(byPath.summary).toEqual(expected);
    expect((await runSimulation(rulesetText, Readable.from([modified]), {})).summary).toEqual(expected);
  });

  it('pcapng and NDJSON are recognised by their first bytes', async () => {
    const ng = await runSimulation(rulesetText, join(FIXTURES, 'two-interfaces.pcapng'), {});
    expect(ng.input).toBe('pcapng');
    expect(ng.summary.packets).toBeGreaterThan(0);
    const lines = [{ 'tcp.dstport': 22, 'ip.proto': 'tcp' }, { 'ip.proto': 'udp', 'ip.src': '10.1.1.1' }, { 'ip.src': '10.1.1.1' }].map((p) => JSON.stringify(p)).join('\n');
    const nd = await runSimulation(rulesetText, new TextEncoder().encode(lines), {});
    expect(nd.input).toBe('ndjson');
    expect(nd.summary.verdicts).toEqual({ allow: 1, block: 2 });
  });
});

describe('simulation(): per-packet results as an async iterable', () => {
  it('yields every packet in order with the verdicts of the summary', async () => {
    const it = simulation(rulesetText, pcap, {}, true);
    const results: PacketResult[] = [];
    let report: SimulationReport;
    for (;;) {
      const n = await it.next();
      if (n.done) {
        report = n.value;
        break;
      }
      results.push(n.value);
    }
    expect(results.map((r) => r.index)).toEqual(results.map((_, i) => i));
    expect(results.filter((r) => r.verdict === 'block').length).toBe(report.summary.verdicts.block);
    expect(report.summary).toEqual((await runSimulation(rulesetText, pcap, { threads: 0 })).summary);
  });
});

describe('progress and cancellation', () => {
  it('progress reports bytes, the total and packets, ending at the whole input', async () => {
    const seen: { bytes: number; totalBytes: number | undefined; packets: number }[] = [];
    const r = await runSimulation(rulesetText, pcap, { chunkBytes: 1, progress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toEqual({ bytes: pcapBytes.length, totalBytes: pcapBytes.length, packets: r.summary.packets });
  });

  it('an aborted signal rejects with its reason', async () => {
    const ac = new AbortController();
    ac.abort(new Error('stop here'));
    await expect(runSimulation(rulesetText, pcap, { signal: ac.signal })).rejects.toThrow('stop here');
  });
});

describe('bad input: one clear answer each, never a throw', () => {
  it('a ruleset with errors: nothing simulated, the errors with ranges in its text', async () => {
    const bad = '{"rules": [{"action": "block", "expression": "tcp.dstport = 80"}]}';
    const r = await runSimulation(bad, pcap, {});
    expect(r.ok).toBe(false);
    expect(r.input).toBe('none');
    expect(r.diagnostics.some((d) => d.code === 'simulation-invalid-ruleset')).toBe(true);
    const malformed = await runSimulation('{"rules": [', pcap, {});
    expect(malformed.ok).toBe(false);
    expect(malformed.diagnostics[0]).toMatchObject({ code: 'ruleset-invalid-json' });
    expect(malformed.diagnostics[0]!.range).toBeDefined();
  });

  it('a --geoip file that is not a table is an error, not a warning per line', async () => {
    const notGeo = join(dir, 'not-geo.csv');
    writeFileSync(notGeo, 'hello\nworld\n'.repeat(20));
    const geoRules = JSON.stringify({ rules: [{ action: 'block', expression: 'ip.src.country == "BR"' }] });
    const r = await runSimulation(geoRules, pcap, { geoip: notGeo });
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'simulation-bad-geoip', severity: 'error' });
    expect(r.diagnostics.length).toBeLessThanOrEqual(6);
    const good = await runSimulation(geoRules, pcap, { geoip: join(FIXTURES, 'geo.csv') });
    expect(good.ok).toBe(true);
  });

  it('a capture with a corrupt record is not ok (its diagnostic an error with the byte offset)', async () => {
    const r = await runSimulation(rulesetText, join(FIXTURES, 'corrupt-record.pcap'), { threads: 0 });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.some((d) => d.code === 'capture-corrupt-record' && d.severity === 'error' && typeof d.data?.['offset'] === 'number')).toBe(true);
  });

  it('an unsupported link type (802.11 radiotap) is named once', async () => {
    const radiotap = Buffer.from(pcapBytes);
    const le = radiotap.readUInt32LE(0) === 0xa1b2c3d4;
    if (le) radiotap.writeUInt32LE(127, 20);
    else radiotap.writeUInt32BE(127, 20);
    const r = await runSimulation(rulesetText, radiotap, {});
    const named = r.diagnostics.filter((d) => d.code === 'capture-unsupported-link-type');
    expect(named).toHaveLength(1);
    expect(named[0]!.message).toContain('radiotap');
  });

  it('NDJSON values of the wrong type are reported per field and packet, and count as missing', async () => {
    const lines = [
      { 'tcp.dstport': '22' },
      { 'tcp.dstport': 22.5 },
      { 'tcp.dstport': -5 },
      { 'ip.src': 42 },
      { 'ip.src': 'bogus' },
      { 'tcp.dstport': 22 },
    ].map((p) => JSON.stringify(p));
    lines.push('{"tcp.dstport": 1e400}');
    const r = await runSimulation(rulesetText, new TextEncoder().encode(lines.join('\n')), {});
    const bad = r.diagnostics.filter((d) => d.code === 'simulation-invalid-value');
    expect(bad.map((d) => d.message.slice(0, 7))).toEqual(['line 1:', 'line 2:', 'line 3:', 'line 4:', 'line 5:', 'line 7:']);
    expect(r.summary.verdicts.block).toBe(1);
  });

  it('invalid NDJSON lines and binary data make the report not ok', async () => {
    const r = await runSimulation(rulesetText, new TextEncoder().encode('{"tcp.dstport": 22}\nnot json\n[1]\n'), {});
    expect(r.ok).toBe(false);
    expect(r.diagnostics.filter((d) => d.code === 'simulation-invalid-packet')).toHaveLength(2);
    const junk = await runSimulation(rulesetText, new Uint8Array([0, 1, 2, 3, 4, 5]), {});
    expect(junk.ok).toBe(false);
    expect(junk.diagnostics.map((d) => d.code)).toEqual(['simulation-unknown-input']);
  });

  it('a source that is not bytes, a missing file or a directory: one diagnostic, never a throw', async () => {
    for (const source of [42, null, { path: 7 }, join(dir, 'missing.pcap'), dir]) {
      const r = await runSimulation(rulesetText, source as never, {});
      expect(r.ok, String(source)).toBe(false);
      expect(r.diagnostics.map((d) => d.code), String(source)).toEqual(['simulation-unreadable-input']);
    }
    const missing = await runSimulation(rulesetText, join(dir, 'missing.pcap'), {});
    expect(missing.diagnostics[0]).toMatchObject({ data: { code: 'ENOENT' } });
    expect(missing.diagnostics[0]!.message).toContain('missing.pcap');
  });
});

describe('simulate() in memory validates what it is given', () => {
  const packets = [{ 'tcp.dstport': 22 }];
  it.each([null, 42, {}, { rules: 'x' }, { rules: [null] }, { rules: [{ action: 'block' }] }])('ruleset %j: diagnostics, no verdicts', (rs) => {
    const r = simulate(rs as never, packets);
    expect(r.results).toEqual([]);
    expect(r.diagnostics[0]).toMatchObject({ code: 'simulation-invalid-ruleset', severity: 'error' });
  });

  it('packets that are not an iterable, or a string, are one diagnostic (not one per character)', () => {
    for (const p of [null, 42, 'x'.repeat(1 << 20)]) {
      const r = simulate(ruleset as never, p as never);
      expect(r.diagnostics.map((d) => d.code)).toEqual(['simulation-invalid-packet']);
    }
  });

  it('values of the wrong type are warnings and count as missing', () => {
    const r = simulate(ruleset as never, [{ 'tcp.dstport': '22' }, { 'tcp.dstport': 80n as never }, { 'tcp.dstport': [22] as never }, { 'ip.src': true as never }]);
    expect(r.results.map((x) => x.verdict)).toEqual(['allow', 'allow', 'allow', 'allow']);
    expect(r.diagnostics.filter((d) => d.code === 'simulation-invalid-value').map((d) => d.pointer)).toEqual([
      '/packets/0/tcp.dstport',
      '/packets/1/tcp.dstport',
      '/packets/2/tcp.dstport',
      '/packets/3/ip.src',
    ]);
  });
});

describe('worker threads by default', () => {
  it('none below PARALLEL_MIN_BYTES or on one core, two above it on two or more cores', () => {
    expect(defaultThreads(undefined, 8)).toBe(0);
    expect(defaultThreads(PARALLEL_MIN_BYTES - 1, 8)).toBe(0);
    expect(defaultThreads(PARALLEL_MIN_BYTES, 1)).toBe(0);
    expect(defaultThreads(PARALLEL_MIN_BYTES, 2)).toBe(2);
    expect(defaultThreads(PARALLEL_MIN_BYTES * 10, 16)).toBe(2);
  });
});
