/**
 * IPv6 extension headers against tshark: ipv6-ext.pcap (made by scapy, make-ipv6-ext.py) holds every
 * header the decoder walks — hop-by-hop, routing, fragment, destination options, AH, ESP — alone, with
 * several lengths, and chained. tshark reports each header's type, next header and length; from those
 * this test computes where the upper layer starts (`ip.hdr_len`) and which protocol it is (`ip.proto`),
 * and the decoder must say the same. The object decoder and the slot decoder share the walk
 * (src/capture/ip-layers.ts), so comparing them with each other cannot find a wrong length; tshark can.
 * The ports, addresses and ICMP fields of the same file are compared in fixtures.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodePacket, IP_PROTOCOL_NAMES } from '../../src/capture/index.js';
import { needsTool } from '../helpers/tools.js';
import { fixture, FIXTURES, parseTsv, readFixture, type Row } from './helpers.js';

const FILE = 'ipv6-ext.pcap';

/** The tshark fields this test reads (make-fixtures.sh writes tshark/ipv6-ext.pcap.layers.tsv with them). */
const LAYER_FIELDS = [
  'frame.number', 'frame.protocols', 'ipv6.nxt', 'ipv6.hopopts.nxt', 'ipv6.hopopts.len_oct', 'ipv6.routing.nxt',
  'ipv6.routing.len_oct', 'ipv6.fraghdr.nxt', 'ipv6.fraghdr.offset', 'ipv6.dstopts.nxt', 'ipv6.dstopts.len_oct',
  'ah.next_header', 'ah.length',
];

function tsharkLayers(file: string): string {
  const args = ['-n', '-r', file, '-o', 'ipv6.defragment:FALSE', '-T', 'fields', '-E', 'header=y', '-E', 'occurrence=a', '-E', 'aggregator=,'];
  for (const f of LAYER_FIELDS) args.push('-e', f);
  const r = spawnSync('tshark', args, { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

interface Walk {
  /** The extension headers in order, as tshark names them. */
  headers: string[];
  /** Bytes from the start of the IPv6 header to the upper layer. */
  hdrLen: number;
  /** The upper-layer protocol number (the last next-header value). */
  nh: number;
  /** A fragment header with a non-zero offset. */
  laterFragment: boolean;
}

/**
 * The extension-header chain of one tshark row. Lengths as tshark decodes them: `len_oct` is the generic
 * headers' length in bytes; the fragment header is 8 bytes; `ah.length` is the AH Payload Len field,
 * the header's length in 4-byte units minus 2 (RFC 4302 §2.2). `-E occurrence=a` lists a field once per
 * header of that type, in packet order, so the n-th dstopts header takes the n-th `ipv6.dstopts.*` values.
 */
function walkFromTshark(row: Row): Walk {
  const values = (f: string) => (row[f] === '' ? [] : row[f]!.split(',').map(Number));
  const taken: Record<string, number> = {};
  const next = (f: string) => {
    const i = (taken[f] = (taken[f] ?? -1) + 1);
    const v = values(f)[i];
    if (v === undefined) throw new Error(`frame ${row['frame.number']}: no occurrence ${i} of ${f}`);
    return v;
  };
  const protocols = row['frame.protocols']!.split(':');
  const walk: Walk = { headers: [], hdrLen: 40, nh: Number(row['ipv6.nxt']), laterFragment: false };
  for (const p of protocols.slice(protocols.indexOf('ipv6') + 1)) {
    if (p === 'ipv6.hopopts' || p === 'ipv6.routing' || p === 'ipv6.dstopts') {
      walk.hdrLen += next(`${p}.len_oct`);
      walk.nh = next(`${p}.nxt`);
    } else if (p === 'ipv6.fraghdr') {
      walk.hdrLen += 8;
      walk.nh = next('ipv6.fraghdr.nxt');
      if (next('ipv6.fraghdr.offset') !== 0) walk.laterFragment = true;
    } else if (p === 'ah') {
      walk.hdrLen += (next('ah.length') + 2) * 4;
      walk.nh = next('ah.next_header');
    } else break;
    walk.headers.push(p);
  }
  return walk;
}

async function compareWithTshark(rows: Row[]): Promise<void> {
  const { records } = await readFixture(FILE);
  expect(records.length).toBe(rows.length);
  expect(rows.length).toBeGreaterThan(0);
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    const walk = walkFromTshark(row);
    walk.headers.forEach((h) => seen.add(h));
    if (row['frame.protocols']!.endsWith(':esp')) seen.add('esp');
    const { packet, problems } = decodePacket(records[i]!);
    const what = `frame ${i + 1} (${row['frame.protocols']})`;
    expect({ proto: packet['ip.proto'], hdrLen: packet['ip.hdr_len'] }, what).toEqual({ proto: IP_PROTOCOL_NAMES[walk.nh], hdrLen: walk.hdrLen });
    if (walk.laterFragment) {
      expect(problems?.map((p) => p.code), what).toEqual(['capture-ip-fragment']);
      expect([packet['udp.srcport'], packet['tcp.srcport']], what).toEqual([undefined, undefined]);
    } else {
      expect(problems ?? [], what).toEqual([]);
    }
  });
  // The fixture holds every header type the decoder walks.
  expect([...seen].sort()).toEqual(['ah', 'esp', 'ipv6.dstopts', 'ipv6.fraghdr', 'ipv6.hopopts', 'ipv6.routing']);
}

describe('IPv6 extension headers: upper layer and header length as tshark dissects them', () => {
  it('with the committed tshark output', async () => {
    await compareWithTshark(parseTsv(readFileSync(`${FIXTURES}/tshark/${FILE}.layers.tsv`, 'utf8')));
  });

  needsTool('tshark')('with tshark run now', async () => {
    await compareWithTshark(parseTsv(tsharkLayers(fixture(FILE))));
  });

  it('walkFromTshark reads a chain with two headers of one type in order', () => {
    const row: Row = {
      'frame.number': '1', 'frame.protocols': 'eth:ethertype:ipv6:ipv6.dstopts:ah:ipv6.dstopts:udp', 'ipv6.nxt': '60',
      'ipv6.dstopts.nxt': '51,17', 'ipv6.dstopts.len_oct': '16,8', 'ah.next_header': '60', 'ah.length': '4',
      'ipv6.hopopts.nxt': '', 'ipv6.routing.nxt': '', 'ipv6.fraghdr.nxt': '',
    };
    expect(walkFromTshark(row)).toEqual({ headers: ['ipv6.dstopts', 'ah', 'ipv6.dstopts'], hdrLen: 40 + 16 + 24 + 8, nh: 17, laterFragment: false });
  });
});
