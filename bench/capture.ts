/**
 * Capture bench: read + decode throughput of a generated 1M-packet pcap (all fields vs the 3 fields a
 * small ruleset reads), against tshark extracting one field (`-T fields -e ip.src`) on a 100k-packet file
 * of the same mix; and memory while streaming files of 100k and 1M packets (constant in the file size).
 * Run: node --expose-gc --import tsx -e "import('./bench/capture.ts').then(m=>m.run())"
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { decodePacket, readCapture, readCaptureBatches, type CaptureRecord, type DecodeOptions } from '../dist/capture/index.js';
import { writeSyntheticPcap } from './capture-gen.js';
import { consume, fmt, measure, printTable, ratio } from './harness.js';

const BIG = 1_000_000;
const SMALL = 100_000;
const THREE_FIELDS = new Set(['ip.src', 'ip.proto', 'tcp.dstport']);
/** The fields a typical 50-rule network ruleset reads. */
const TEN_FIELDS = new Set(['ip.src', 'ip.dst', 'ip.proto', 'ip.len', 'ip.ttl', 'tcp.dstport', 'tcp.flags.syn', 'udp.dstport', 'udp.srcport', 'icmp.type']);

interface Pass {
  packets: number;
  seconds: number;
  /** Highest heapUsed + arrayBuffers seen while streaming, in MB. */
  peakMB: number;
}

/** Stream `file` through the reader, decoding each record with `decode` options (or not at all). */
async function pass(
  file: string,
  decode: DecodeOptions | undefined,
  sampleEvery = 50_000,
  perRecord = false,
  timestamps?: 'bigint' | 'number',
): Promise<Pass> {
  let n = 0;
  let peak = 0;
  const t0 = performance.now();
  const source = createReadStream(file, { highWaterMark: 256 * 1024 });
  const options = { timestamps: timestamps ?? 'number' } as const;
  const sample = (): void => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed + m.arrayBuffers);
  };
  if (perRecord) {
    for await (const rec of readCapture(source, options)) {
      if (decode) consume(decodePacket(rec, decode).packet['ip.len']);
      if (++n % sampleEvery === 0) sample();
    }
  } else {
    for await (const batch of readCaptureBatches(source, options)) {
      for (const rec of batch) {
        if (decode) consume(decodePacket(rec, decode).packet['ip.len']);
        if (++n % sampleEvery === 0) sample();
      }
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  return { packets: n, seconds, peakMB: peak / 1048576 };
}

async function best(file: string, decode: DecodeOptions | undefined, perRecord = false, timestamps?: 'bigint' | 'number', runs = 3): Promise<Pass> {
  let b: Pass | undefined;
  for (let i = 0; i < runs; i++) {
    const p = await pass(file, decode, 50_000, perRecord, timestamps);
    if (!b || p.seconds < b.seconds) b = p;
  }
  return b!;
}

function tsharkPps(file: string, packets: number): number | undefined {
  const probe = spawnSync('tshark', ['-v'], { stdio: 'ignore' });
  if (probe.status !== 0) return undefined;
  const t0 = performance.now();
  const r = spawnSync('tshark', ['-n', '-r', file, '-T', 'fields', '-e', 'ip.src'], { stdio: ['ignore', 'ignore', 'ignore'] });
  const s = (performance.now() - t0) / 1000;
  return r.status === 0 ? packets / s : undefined;
}

/** Print the capture bench tables. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rulekit-capture-bench-'));
  try {
    const big = join(dir, 'big.pcap');
    const small = join(dir, 'small.pcap');
    writeSyntheticPcap(big, BIG, { seed: 42 });
    writeSyntheticPcap(small, SMALL, { seed: 42 });
    const gc = (globalThis as { gc?: () => void }).gc;

    // Throughput.
    const readOnly = await best(big, undefined);
    const readBigint = await best(big, undefined, false, 'bigint');
    const readPerRecord = await best(big, undefined, true);
    const all = await best(big, {});
    const three = await best(big, { fields: THREE_FIELDS });
    const ten = await best(big, { fields: TEN_FIELDS });
    const tshark = tsharkPps(small, SMALL);
    const pps = (p: Pass) => p.packets / p.seconds;
    const vs = (v: number) => (tshark ? ratio(v, tshark) : 'n/a (no tshark)');

    // The decoder alone on records held in memory (no I/O).
    const held: CaptureRecord[] = [];
    for await (const r of readCapture(createReadStream(small), { timestamps: 'number' })) {
      held.push(r);
      if (held.length === 50_000) break;
    }
    const every = (options: DecodeOptions) => () => {
      for (const r of held) consume(decodePacket(r, options).packet['ip.len']);
    };
    const decodeAll = measure(every({}), { opsPerCall: held.length, samples: 5 });
    const decodeThree = measure(every({ fields: THREE_FIELDS }), { opsPerCall: held.length, samples: 5 });
    held.length = 0;

    const rows: (string | number)[][] = [
      [`read only (${BIG / 1e6}M packets streamed from disk, readCaptureBatches)`, fmt(pps(readOnly) / 1e6), vs(pps(readOnly))],
      ['read only, bigint timestamps', fmt(pps(readBigint) / 1e6), vs(pps(readBigint))],
      ['read only, readCapture (one await per record)', fmt(pps(readPerRecord) / 1e6), vs(pps(readPerRecord))],
      ['read + decode, all fields', fmt(pps(all) / 1e6), vs(pps(all))],
      ['read + decode, 10 fields (addresses, proto, len, ttl, ports, syn, icmp.type)', fmt(pps(ten) / 1e6), vs(pps(ten))],
      ['read + decode, 3 fields (ip.src, ip.proto, tcp.dstport)', fmt(pps(three) / 1e6), vs(pps(three))],
      ['decode only (records in memory), all fields', fmt(1e3 / decodeAll.median), vs(1e9 / decodeAll.median)],
      ['decode only (records in memory), 3 fields', fmt(1e3 / decodeThree.median), vs(1e9 / decodeThree.median)],
      [`tshark -T fields -e ip.src (${SMALL / 1e3}k packets)`, tshark ? fmt(tshark / 1e6) : 'n/a', tshark ? '1.00×' : 'n/a'],
    ];
    printTable('Capture read + decode throughput', ['case', 'M packets/s', 'vs tshark'], rows, [
      `Synthetic Ethernet pcap, 75% IPv4 / 25% IPv6, TCP:UDP:ICMP = 6:3:1 (bench/capture-gen.ts, seed 42); ${fmt(statSync(big).size / 1048576)} MB for ${BIG / 1e6}M packets.`,
      'Addresses come from pools of 4096 IPv4 sources and 256 destinations (IPv6 alike), so the decoder\'s address-text caches hit as they do on real traffic; unique addresses cost one text build each.',
      'Timestamps as numbers unless said otherwise; reads use readCaptureBatches (one await per 256 KiB chunk) unless said otherwise.',
      'tshark dissects every layer of every packet; rulekit decodes only the IP/transport fields (and with `fields`, only those asked for).',
    ]);

    // Memory: the same streaming pass over 100k and 1M packets.
    gc?.();
    const m100 = await pass(small, {}, 10_000);
    gc?.();
    const rss100 = process.resourceUsage().maxRSS / 1024;
    const m1m = await pass(big, {}, 10_000);
    gc?.();
    const rss1m = process.resourceUsage().maxRSS / 1024;
    printTable(
      'Capture streaming memory (read + decode all fields)',
      ['file', 'file MB', 'peak heap + buffers MB', 'process max RSS MB after'],
      [
        [`${SMALL / 1e3}k packets`, fmt(statSync(small).size / 1048576), fmt(m100.peakMB), fmt(rss100)],
        [`${BIG / 1e6}M packets`, fmt(statSync(big).size / 1048576), fmt(m1m.peakMB), fmt(rss1m)],
        ['ratio 1M / 100k', ratio(statSync(big).size, statSync(small).size), ratio(m1m.peakMB, m100.peakMB), ratio(rss1m, rss100)],
      ],
      ['Peak sampled every 10k packets while streaming; max RSS is the process high-water mark (it includes the earlier throughput runs).'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
