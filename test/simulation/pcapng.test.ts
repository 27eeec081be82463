/**
 * pcapng on the in-place chunk walk (src/simulation/pcap-chunks.ts): the same capture as classic pcap and
 * as pcapng gives the same summary, and the walk gives what the general reader gives (summary,
 * diagnostics, bytes) on clean, multi-section, big-endian, simple/obsolete packet block and damaged
 * files, read whole or streamed, on this thread and on worker threads.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSimulation, simulation, type SimulateInputOptions, type SimulationReport } from '../../src/simulation/index.js';
import { needsTool } from '../helpers/tools.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'capture');
const dir = mkdtempSync(join(tmpdir(), 'rulekit-pcapng-'));
const rulesetText = JSON.stringify({
  rules: [
    { action: 'block', expression: 'tcp.dstport in {22 23}' },
    { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'ip.proto == "udp"' },
    { action: 'block', expression: 'ip.src in {10.0.0.0/8 192.168.0.0/16}' },
    { action: 'block', expression: 'ip.len > 100 and ip.proto != "tcp"' },
  ],
});
const read = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

/** The general reader's report: per-packet results take it, never the chunk walk. */
async function general(source: Uint8Array | string, options: SimulateInputOptions = {}): Promise<SimulationReport> {
  const it = simulation(rulesetText, source, options, true);
  for (;;) {
    const n = await it.next();
    if (n.done) return n.value;
  }
}

const facts = (r: SimulationReport) => ({ summary: r.summary, diagnostics: r.diagnostics, bytes: r.bytes, input: r.input });

// ---- a pcapng writer over a classic pcap's records --------------------------------------------------

interface PcapRecord {
  sec: number;
  frac: number;
  origlen: number;
  data: Uint8Array;
}

function pcapRecords(bytes: Uint8Array): { linkType: number; nanos: boolean; records: PcapRecord[] } {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = v.getUint32(0, true);
  const le = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const nanos = (le ? magic : v.getUint32(0, false)) === 0xa1b23c4d;
  const records: PcapRecord[] = [];
  for (let p = 24; p + 16 <= bytes.length; ) {
    const caplen = v.getUint32(p + 8, le);
    records.push({ sec: v.getUint32(p, le), frac: v.getUint32(p + 4, le), origlen: v.getUint32(p + 12, le), data: bytes.subarray(p + 16, p + 16 + caplen) });
    p += 16 + caplen;
  }
  return { linkType: v.getUint32(20, le) & 0xffff, nanos, records };
}

type Kind = 'epb' | 'spb' | 'opb';

/** One pcapng section (SHB, one or two IDBs, a packet block per record) in the byte order asked for. */
function pcapngSection(
  pcap: ReturnType<typeof pcapRecords>,
  { littleEndian = true, kind = 'epb' as Kind, extraInterface = false, options = false } = {},
): Uint8Array {
  const blocks: Uint8Array[] = [];
  const block = (type: number, body: Uint8Array) => {
    const len = 12 + ((body.length + 3) & ~3);
    const out = new Uint8Array(len);
    const v = new DataView(out.buffer);
    v.setUint32(0, type, littleEndian);
    v.setUint32(4, len, littleEndian);
    out.set(body, 8);
    v.setUint32(len - 4, len, littleEndian);
    blocks.push(out);
  };
  const shb = new Uint8Array(16);
  const sv = new DataView(shb.buffer);
  sv.setUint32(0, 0x1a2b3c4d, littleEndian);
  sv.setUint16(4, 1, littleEndian);
  sv.setBigInt64(8, -1n, littleEndian);
  block(0x0a0d0d0a, shb);
  const idb = (linkType: number) => {
    // if_tsresol 9 (nanoseconds) when the pcap had nanoseconds, then opt_endofopt.
    const body = new Uint8Array(pcap.nanos ? 20 : 8);
    const iv = new DataView(body.buffer);
    iv.setUint16(0, linkType, littleEndian);
    iv.setUint32(4, 0, littleEndian);
    if (pcap.nanos) {
      iv.setUint16(8, 9, littleEndian);
      iv.setUint16(10, 1, littleEndian);
      body[12] = 9;
    }
    block(1, body);
  };
  // A second interface first (never used) puts the capture's own on interface 1.
  if (extraInterface) idb(147);
  idb(pcap.linkType);
  const iface = extraInterface ? 1 : 0;
  for (const r of pcap.records) {
    const units = BigInt(r.sec) * (pcap.nanos ? 1_000_000_000n : 1_000_000n) + BigInt(r.frac);
    if (kind === 'spb') {
      const body = new Uint8Array(4 + r.data.length);
      new DataView(body.buffer).setUint32(0, r.origlen, littleEndian);
      body.set(r.data, 4);
      block(3, body);
      continue;
    }
    // An EPB may carry options after the data (a comment here): the walk must step over them.
    const opt = options && kind === 'epb' ? 12 : 0;
    const body = new Uint8Array(20 + ((r.data.length + 3) & ~3) + opt);
    const bv = new DataView(body.buffer);
    if (kind === 'epb') bv.setUint32(0, iface, littleEndian);
    else bv.setUint16(0, iface, littleEndian);
    bv.setUint32(4, Number(units >> 32n), littleEndian);
    bv.setUint32(8, Number(units & 0xffffffffn), littleEndian);
    bv.setUint32(12, r.data.length, littleEndian);
    bv.setUint32(16, r.origlen, littleEndian);
    body.set(r.data, 20);
    if (opt) {
      const o = 20 + ((r.data.length + 3) & ~3);
      bv.setUint16(o, 1, littleEndian);
      bv.setUint16(o + 2, 3, littleEndian);
      body.set([0x61, 0x62, 0x63], o + 4);
    }
    block(kind === 'epb' ? 6 : 2, body);
  }
  return concat(blocks);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The records of a pcap repeated until the file passes `bytes` (a capture of several chunks). */
function bigPcap(name: string, bytes: number): Uint8Array {
  const src = read(name);
  const body = src.subarray(24);
  const parts = [src.subarray(0, 24)];
  for (let n = 24; n < bytes; n += body.length) parts.push(body);
  return concat(parts);
}

async function* dribble(bytes: Uint8Array, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

// ---- the tests ---------------------------------------------------------------------------------------

describe('pcapng fixtures: the chunk walk gives what the general reader gives', () => {
  for (const name of ['two-interfaces.pcapng', 'spb.pcapng', 'text2pcap.pcapng', 'corrupt-block.pcapng']) {
    it(name, async () => {
      const fast = await runSimulation(rulesetText, join(FIXTURES, name), { threads: 0 });
      expect(fast.input).toBe('pcapng');
      expect(fast.summary.packets).toBeGreaterThan(0);
      expect(facts(fast)).toEqual(facts(await general(join(FIXTURES, name))));
      expect(facts(await runSimulation(rulesetText, dribble(read(name), 13), {}))).toEqual({ ...facts(fast) });
    });
  }

  it('corrupt-block.pcapng: the corrupt block is reported at its offset and the rest is counted', async () => {
    const r = await runSimulation(rulesetText, join(FIXTURES, 'corrupt-block.pcapng'), { threads: 0 });
    const whole = await runSimulation(rulesetText, join(FIXTURES, 'two-interfaces.pcapng'), { threads: 0 });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['capture-corrupt-record', 'capture-resynchronised']);
    expect(r.summary.packets).toBe(whole.summary.packets - 1);
    expect(r.bytes).toBe(read('corrupt-block.pcapng').length);
  });
});

describe('the same capture as pcap and as pcapng gives the same summary', () => {
  const PCAPS = ['mixed-le-usec.pcap', 'mixed-be-usec.pcap', 'mixed-nsec.pcap', 'vlan.pcap', 'raw-ip.pcap', 'sll.pcap', 'sll2.pcap', 'loopback-null.pcap', 'snaplen.pcap', 'ipv6-ext.pcap'];

  needsTool('tshark')('converted by editcap -F pcapng, on slots and on packet objects', async () => {
    for (const name of PCAPS) {
      const ng = join(dir, `${name}ng`);
      const r = spawnSync('editcap', ['-F', 'pcapng', join(FIXTURES, name), ng], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      for (const decoder of ['auto', 'objects'] as const) {
        const a = await runSimulation(rulesetText, join(FIXTURES, name), { threads: 0, decoder });
        const b = await runSimulation(rulesetText, ng, { threads: 0, decoder });
        expect(b.input, name).toBe('pcapng');
        expect(b.decoder, name).toBe(a.decoder);
        expect(b.summary, `${name} (${decoder})`).toEqual(a.summary);
        expect(b.diagnostics, name).toEqual(a.diagnostics);
      }
    }
  });

  it('written here in either byte order, with enhanced, obsolete or simple packet blocks, options and a second interface', async () => {
    for (const name of ['mixed-le-usec.pcap', 'mixed-nsec.pcap', 'sll2.pcap']) {
      const pcap = pcapRecords(read(name));
      const expected = (await runSimulation(rulesetText, join(FIXTURES, name), { threads: 0 })).summary;
      for (const littleEndian of [true, false]) {
        for (const kind of ['epb', 'opb', 'spb'] as const) {
          const ng = pcapngSection(pcap, { littleEndian, kind, extraInterface: kind !== 'spb', options: true });
          const fast = await runSimulation(rulesetText, ng, { threads: 0 });
          const label = `${name} ${littleEndian ? 'LE' : 'BE'} ${kind}`;
          expect(fast.summary, label).toEqual(expected);
          expect(fast.diagnostics, label).toEqual([]);
          expect(fast.bytes, label).toBe(ng.length);
          expect(facts(fast), label).toEqual(facts(await general(ng)));
        }
      }
    }
  });
});

describe('captures of many chunks', () => {
  const pcap = bigPcap('mixed-le-usec.pcap', 3 << 20);
  const records = pcapRecords(pcap);
  // Two sections of different byte orders and packet blocks, one after the other.
  const half = Math.floor(records.records.length / 2);
  const ng = concat([
    pcapngSection({ ...records, records: records.records.slice(0, half) }, { littleEndian: true, extraInterface: true }),
    pcapngSection({ ...records, records: records.records.slice(half) }, { littleEndian: false, kind: 'opb' }),
  ]);
  let expected: SimulationReport;

  it('two sections, little- then big-endian: the pcap summary, on this thread, streamed and on worker threads', async () => {
    expected = await runSimulation(rulesetText, pcap, { threads: 0 });
    expect(expected.summary.packets).toBeGreaterThan(10_000);
    const fast = await runSimulation(rulesetText, ng, { threads: 0 });
    expect(fast.summary).toEqual(expected.summary);
    expect(fast.bytes).toBe(ng.length);
    expect(facts(await runSimulation(rulesetText, dribble(ng, 65_521), { threads: 0 }))).toEqual(facts(fast));
    // Worker threads run the built worker (dist/simulation/worker.js; npm test builds first).
    const file = join(dir, 'big.pcapng');
    (await import('node:fs')).writeFileSync(file, ng);
    const threaded = await runSimulation(rulesetText, file, { threads: 2, chunkBytes: 1 << 20 });
    expect(threaded.threads).toBe(2);
    expect(threaded.summary).toEqual(expected.summary);
    expect(facts(await general(ng))).toEqual(facts(fast));
  });

  it('a damaged block past the first chunk: the general reader takes over from it, with whole-file offsets and numbers', async () => {
    const damaged = ng.slice();
    const v = new DataView(damaged.buffer);
    // Find a packet block past 1.5 MiB and break its length (then, separately, its interface id).
    let p = 0;
    while (p < 1.5 * (1 << 20)) p += v.getUint32(p + 4, true);
    const lengthBroken = damaged.slice();
    new DataView(lengthBroken.buffer).setUint32(p + 4, 0xfffffff0, true);
    const ifaceBroken = damaged.slice();
    new DataView(ifaceBroken.buffer).setUint32(p + 8, 7, true);
    const cut = ng.subarray(0, p + 20);
    for (const [label, bytes] of [['length', lengthBroken], ['interface', ifaceBroken], ['cut', cut]] as const) {
      const fast = await runSimulation(rulesetText, bytes, { threads: 0 });
      const slow = await general(bytes);
      expect(fast.diagnostics.length, label).toBeGreaterThan(0);
      expect(fast.diagnostics[0]!.data, label).toMatchObject({ offset: p });
      expect(facts(fast), label).toEqual(facts(slow));
    }
  });
});

describe('classic pcap after a damaged record', () => {
  it('the bytes read are the file size, as the general reader counts them', async () => {
    for (const name of ['corrupt-record.pcap', 'truncated-end.pcap']) {
      const fast = await runSimulation(rulesetText, join(FIXTURES, name), { threads: 0 });
      expect(fast.bytes, name).toBe(read(name).length);
      expect(facts(fast), name).toEqual(facts(await general(join(FIXTURES, name))));
    }
  });
});
