/** Shared helpers of the capture tests: fixture paths, tshark, TSV goldens, and the per-packet comparison. */
import { spawnSync } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { IP_PROTOCOL_NAMES, readCaptureAll, type CaptureRecord, type Packet } from '../../src/capture/index.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'capture');

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** Read a fixture through a file stream with small chunks (exercises the streaming path). */
export function readFixture(name: string, highWaterMark = 997) {
  return readCaptureAll(createReadStream(fixture(name), { highWaterMark }));
}

export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fixture(name)));
}

export const TSHARK_FIELDS = [
  'frame.number', 'frame.time_epoch', 'frame.cap_len', 'frame.len', 'frame.interface_id',
  'ip.src', 'ip.dst', 'ipv6.src', 'ipv6.dst', 'ip.ttl', 'ipv6.hlim', 'ip.len', 'ipv6.plen', 'ip.hdr_len',
  'ip.proto', 'ip.opt.type', 'tcp.srcport', 'tcp.dstport', 'tcp.flags', 'udp.srcport', 'udp.dstport',
  'icmp.type', 'icmp.code', 'icmpv6.type', 'icmpv6.code',
] as const;

/** The same command make-fixtures.sh used for the goldens. */
export function runTshark(file: string): string {
  const args = ['-n', '-r', file, '-o', 'ip.defragment:FALSE', '-o', 'ipv6.defragment:FALSE', '-T', 'fields', '-E', 'header=y', '-E', 'occurrence=f'];
  for (const f of TSHARK_FIELDS) args.push('-e', f);
  const r = spawnSync('tshark', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return r.stdout;
}

export type Row = Record<string, string>;

export function parseTsv(text: string): Row[] {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const header = lines[0]!.split('\t');
  return lines.slice(1).map((l) => {
    const cells = l.split('\t');
    const row: Row = {};
    header.forEach((h, i) => (row[h] = cells[i] ?? ''));
    return row;
  });
}

export function goldenRows(name: string): Row[] {
  return parseTsv(readFileSync(join(FIXTURES, 'tshark', `${name}.tsv`), 'utf8'));
}

/** Nanosecond timestamp as tshark prints frame.time_epoch (`seconds.nanoseconds`). */
export function epochText(ns: bigint | number): string {
  const b = BigInt(ns);
  return `${b / 1_000_000_000n}.${(b % 1_000_000_000n).toString().padStart(9, '0')}`;
}

const num = (s: string): number | undefined => (s === '' ? undefined : s.startsWith('0x') ? parseInt(s, 16) : Number(s));

/**
 * What tshark's row says our decoder must produce (undefined = the field must be absent). Differences
 * between the two schemes are mapped here: IPv6 addresses and hop limit go to `ip.*`, `ip.len` of IPv6 is
 * the payload length + 40, `tcp.flags` is the low byte of tshark's 12-bit flags, ICMPv6 goes to `icmp.*`.
 */
export function expectedFromTshark(row: Row): Partial<Record<keyof Packet, unknown>> {
  const v6 = row['ipv6.src'] !== '';
  const v4 = row['ip.src'] !== '';
  const plen = num(row['ipv6.plen']!);
  // In an ICMP error tshark also dissects the quoted packet: its transport ports are not the packet's own.
  const icmp = row['icmp.type'] !== '' || row['icmpv6.type'] !== '';
  return {
    'ip.src': (v4 ? row['ip.src'] : v6 ? row['ipv6.src'] : '') || undefined,
    'ip.dst': (v4 ? row['ip.dst'] : v6 ? row['ipv6.dst'] : '') || undefined,
    'ip.ttl': v4 ? num(row['ip.ttl']!) : v6 ? num(row['ipv6.hlim']!) : undefined,
    'ip.len': v4 ? num(row['ip.len']!) : v6 && plen !== undefined ? plen + 40 : undefined,
    ...(v4 ? { 'ip.hdr_len': num(row['ip.hdr_len']!), 'ip.proto': row['ip.proto'] === '' ? undefined : IP_PROTOCOL_NAMES[Number(row['ip.proto'])] } : {}),
    'ip.opt.type': num(row['ip.opt.type']!),
    'tcp.srcport': icmp ? undefined : num(row['tcp.srcport']!),
    'tcp.dstport': icmp ? undefined : num(row['tcp.dstport']!),
    'tcp.flags': icmp || row['tcp.flags'] === '' ? undefined : num(row['tcp.flags']!)! & 0xff,
    'udp.srcport': icmp ? undefined : num(row['udp.srcport']!),
    'udp.dstport': icmp ? undefined : num(row['udp.dstport']!),
    'icmp.type': v4 ? num(row['icmp.type']!) : num(row['icmpv6.type']!),
    'icmp.code': v4 ? num(row['icmp.code']!) : num(row['icmpv6.code']!),
  };
}

/** The packet's values of the keys `expected` names (for a readable toEqual diff). */
export function pick(packet: Packet, expected: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(expected)) out[k] = (packet as Record<string, unknown>)[k];
  return out;
}

/** Record-level facts tshark prints. */
export function recordFacts(r: CaptureRecord, row: Row): { actual: unknown[]; expected: unknown[] } {
  return {
    // A simple packet block has no timestamp: tshark prints none, the reader gives 0.
    actual: [String(r.index + 1), row['frame.time_epoch'] === '' && BigInt(r.timestampNs) === 0n ? '' : epochText(r.timestampNs), String(r.capturedLength), String(r.originalLength)],
    expected: [row['frame.number'], row['frame.time_epoch'], row['frame.cap_len'], row['frame.len']],
  };
}
