/**
 * decodeSlots (the simulator's numeric hot path) must say exactly what decodePacket says in every slot
 * field: on every record of every fixture, on a generated capture, on mangled and random frames, and on
 * generated IPv4/IPv6 frames with options, fragments, extension-header chains and SIP payloads.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePacket, decodeSlots, fillGeoSlots, geoName, geoIpFromCsv, IP_PROTOCOL_NAMES, IP_WORDS, LINK_LAYERS, readCaptureAll, SLOT, SLOT_FIELDS, Slots, type Packet } from '../../src/capture/index.js';
import { ipv4Text, ipv6Text } from '../../src/capture/address-text.js';
import { writeSyntheticPcap } from '../../bench/capture-gen.js';
import { FIXTURES, fixtureBytes } from './helpers.js';

type Fields = Record<string, unknown>;

/** The slots back in the object decoder's representation (a malformed slot becomes a text that cannot match). */
function slotsToFields(s: Slots): Fields {
  const out: Fields = {};
  for (const [name, kind] of SLOT_FIELDS) {
    const i = SLOT[name]!;
    const v = s.V[i]!;
    if (Number.isNaN(v)) {
      out[name] = kind === 'ip' && !Number.isNaN(s.V[i + 1]!) ? `bad: IPv4 value ${s.V[i + 1]} without a family` : undefined;
      continue;
    }
    if (kind === 'int') out[name] = Number.isInteger(v) ? v : `bad int ${v}`;
    else if (kind === 'bool') out[name] = v === 1 ? true : v === 0 ? false : `bad bool ${v}`;
    else if (kind === 'proto') out[name] = IP_PROTOCOL_NAMES[v] ?? `bad proto ${v}`;
    else if (kind === 'geo') out[name] = geoName(v) ?? `bad country number ${v}`;
    else if (v === 4) {
      const a = s.V[i + 1]!;
      if (!Number.isInteger(a) || a < 0 || a > 0xffffffff) out[name] = `bad IPv4 value ${a}`;
      else out[name] = ipv4Text(Uint8Array.of(a >>> 24, (a >>> 16) & 255, (a >>> 8) & 255, a & 255), 0);
    } else if (v === 6) {
      if (!Number.isNaN(s.V[i + 1]!)) out[name] = `bad: IPv6 with an IPv4 value ${s.V[i + 1]}`;
      else {
        const b = new Uint8Array(16);
        const view = new DataView(b.buffer);
        for (let k = 0; k < 4; k++) view.setUint32(4 * k, s.W[IP_WORDS[name]! + k]!);
        out[name] = ipv6Text(b, 0);
      }
    } else out[name] = `bad family ${v}`;
  }
  return out;
}

/**
 * The country/ASN table of the fixtures: both decoders are given it, so the country and AS number slots
 * (filled by fillGeoSlots from the integer addresses) are held to the object decoder's lookups too.
 */
const GEO = geoIpFromCsv(readFileSync(join(FIXTURES, 'geo.csv'), 'utf8')).lookup;

/** The object decoder's slot fields (absent: undefined). */
function objectFields(d: Uint8Array, linkType: number): Fields {
  const packet: Packet = decodePacket({ linkType, data: d }, { problems: false, geoip: GEO }).packet;
  const out: Fields = {};
  for (const [name] of SLOT_FIELDS) out[name] = (packet as Fields)[name];
  return out;
}

const slots = new Slots();

/** Decode `d[start, end)` both ways; return [slots as fields, object fields]. */
function both(d: Uint8Array, start: number, end: number, linkType: number): [Fields, Fields] {
  decodeSlots(slots, d, start, end, linkType);
  fillGeoSlots(slots, GEO);
  return [slotsToFields(slots), objectFields(d.subarray(start, end), linkType)];
}

function expectSame(d: Uint8Array, linkType: number, what: string, start = 0, end = d.length): Fields {
  const [got, want] = both(d, start, end, linkType);
  expect(got, what).toEqual(want);
  return got;
}

/** How often each slot field was present, and each Bool true / false (the corpus must exercise them all). */
class Coverage {
  readonly seen = new Map<string, number>();
  add(f: Fields): void {
    for (const [k, v] of Object.entries(f)) {
      if (v === undefined) continue;
      const key = typeof v === 'boolean' ? `${k}=${v}` : k;
      this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
    }
  }
  has(key: string): boolean {
    return (this.seen.get(key) ?? 0) > 0;
  }
}

const FIXTURE_FILES = readdirSync(FIXTURES).filter((f) => /\.pcap(ng)?$/.test(f)).sort();
/** Every record of every fixture (the mangled-frame property starts from these). */
const FIXTURE_RECORDS = await Promise.all(FIXTURE_FILES.map(async (name) => ({ name, records: (await readCaptureAll(fixtureBytes(name))).records })));
const frames = FIXTURE_RECORDS.flatMap(({ name, records }) => records.map((r) => ({ data: r.data, linkType: r.linkType, name: `${name}#${r.index + 1}` })));

describe('decodeSlots = decodePacket on every slot field', () => {
  const coverage = new Coverage();

  it('found the fixtures and their records (the loop below is not empty)', () => {
    expect(FIXTURE_FILES.length).toBeGreaterThanOrEqual(18);
    for (const { name, records } of FIXTURE_RECORDS) expect(records.length, name).toBeGreaterThan(0);
  });

  it.each(FIXTURE_RECORDS)('every record of fixture $name', ({ name, records }) => {
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) coverage.add(expectSame(r.data, r.linkType, `${name} record ${r.index + 1}`));
  });

  it('the fixtures cover the link types and most slot fields', () => {
    for (const { records } of FIXTURE_RECORDS) for (const r of records) coverage.add(slotsToFields((decodeSlots(slots, r.data, 0, r.data.length, r.linkType), fillGeoSlots(slots, GEO), slots)));
    expect(new Set(frames.map((f) => f.linkType))).toEqual(new Set([0, 1, 101, 113, 228, 229, 276]));
    for (const f of ['ip.src', 'ip.dst', 'ip.proto', 'ip.len', 'ip.hdr_len', 'ip.ttl', 'ip.opt.type', 'tcp.srcport', 'tcp.flags', 'tcp.flags.syn=true', 'tcp.flags.syn=false', 'udp.dstport', 'icmp.type', 'icmp.code', 'sip=false', 'ip.src.country', 'ip.dst.country', 'ip.src.asnum', 'ip.dst.asnum']) {
      expect(coverage.has(f), f).toBe(true);
    }
  });

  describe('a generated capture (bench/capture-gen.ts, 20k packets), records decoded in place in the file buffer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-slots-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    it('equals the object decoder on every record', async () => {
      const path = join(dir, 'gen.pcap');
      writeSyntheticPcap(path, 20_000, { payloadBytes: 4 });
      const file = new Uint8Array(readFileSync(path));
      const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
      const coverage = new Coverage();
      let n = 0;
      for (let at = 24; at + 16 <= file.length; n++) {
        const caplen = view.getUint32(at + 8, true);
        const start = at + 16;
        const [got, want] = both(file, start, start + caplen, 1);
        if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, `record ${n + 1}`).toEqual(want);
        coverage.add(got);
        at = start + caplen;
      }
      expect(n).toBe(20_000);
      // The reader gives the same records.
      const { records } = await readCaptureAll(file);
      expect(records.length).toBe(n);
      for (const f of ['ip.src', 'tcp.flags.ack=true', 'tcp.flags.ack=false', 'udp.srcport', 'icmp.type']) expect(coverage.has(f), f).toBe(true);
    });
  });
});

// ---- generated and mangled frames ----

const LINK_TYPES = [...LINK_LAYERS.keys()];
const SIP_PAYLOADS = ['INVITE sip:bob@example.com SIP/2.0\r\n', 'SIP/2.0 200 OK\r\n', 'BYE tel:+123', 'REGISTER sips:a', 'INVITE  sip:x', 'OPTIONS', 'ACK sip', 'ACK ', 'SIP/2.0', 'GET / HTTP/1.1\r\n'].map((t) => Array.from(t, (c) => c.charCodeAt(0)));

const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Array.from(a));
const payload = fc.oneof(fc.constantFrom(...SIP_PAYLOADS), bytes(24));

/** A transport header (TCP with a data offset, UDP, ICMP or other) and its payload. */
const transportArb = fc.record({
  proto: fc.constantFrom(6, 17, 1, 58, 47, 0, 44, 51),
  header: fc.uint8Array({ minLength: 20, maxLength: 20 }),
  dataOffset: fc.constantFrom(5, 5, 5, 0, 6, 15),
  payload,
});

function transportBytes(t: { proto: number; header: Uint8Array; dataOffset: number; payload: number[] }): number[] {
  const h = Array.from(t.header);
  if (t.proto === 6) {
    h[12] = (t.dataOffset << 4) | (h[12]! & 0x0f);
    return [...h, ...(t.dataOffset > 5 && t.dataOffset < 15 ? Array(4 * (t.dataOffset - 5)).fill(1) : []), ...t.payload];
  }
  if (t.proto === 17) return [...h.slice(0, 8), ...t.payload];
  return [...h.slice(0, 8), ...t.payload];
}

const lengthMode = fc.constantFrom('exact', 'exact', 'zero', 'small', 'large', 'random');
function fixLength(mode: string, exact: number, random: number): number {
  return mode === 'exact' ? exact : mode === 'zero' ? 0 : mode === 'small' ? Math.max(0, exact - 7) : mode === 'large' ? exact + 9 : random & 0xffff;
}

const ipv4Arb = fc.record({
  header: fc.uint8Array({ minLength: 20, maxLength: 20 }),
  ihlWords: fc.oneof(fc.constant(5), fc.integer({ min: 0, max: 15 })),
  options: bytes(40),
  fragment: fc.constantFrom(0, 0, 0x2000, 1, 0x1fff, 0x4000),
  lengthMode,
  t: transportArb,
  trailer: bytes(6),
}).map((g) => {
  const h = Array.from(g.header);
  const ihl = g.ihlWords * 4;
  const opts = ihl > 20 ? Array.from({ length: ihl - 20 }, (_, i) => g.options[i] ?? 0) : [];
  const body = transportBytes(g.t);
  h[0] = 0x40 | g.ihlWords;
  h[6] = g.fragment >> 8;
  h[7] = g.fragment & 0xff;
  h[9] = g.t.proto;
  const total = fixLength(g.lengthMode, 20 + opts.length + body.length, (h[2]! << 8) | h[3]!);
  h[2] = total >> 8;
  h[3] = total & 0xff;
  return [...h, ...opts, ...body, ...g.trailer];
});

const EXT = [0, 43, 60, 135, 139, 140, 51, 44];
const ipv6Arb = fc.record({
  header: fc.uint8Array({ minLength: 40, maxLength: 40 }),
  chain: fc.array(fc.record({ type: fc.constantFrom(...EXT), units: fc.integer({ min: 0, max: 3 }), fill: fc.integer({ min: 0, max: 255 }), fragment: fc.constantFrom(0, 0, 1, 0x1fff) }), { maxLength: 18 }),
  lengthMode,
  t: transportArb,
  trailer: bytes(6),
}).map((g) => {
  const h = Array.from(g.header);
  h[0] = 0x60 | (h[0]! & 0x0f);
  const ext: number[] = [];
  const types = [...g.chain.map((e) => e.type), g.t.proto];
  h[6] = types[0]!;
  g.chain.forEach((e, i) => {
    const next = types[i + 1]!;
    if (e.type === 44) ext.push(next, 0, (e.fragment << 3) >> 8, ((e.fragment << 3) & 0xf8) | (e.fill & 1), 1, 2, 3, 4);
    else {
      const len = e.type === 51 ? (e.units + 2) * 4 : (e.units + 1) * 8;
      ext.push(next, e.units, ...Array<number>(len - 2).fill(e.fill));
    }
  });
  const body = transportBytes(g.t);
  const plen = fixLength(g.lengthMode, ext.length + body.length, (h[4]! << 8) | h[5]!);
  h[4] = plen >> 8;
  h[5] = plen & 0xff;
  return [...h, ...ext, ...body, ...g.trailer];
});

/** Link-layer framing of an IP packet: raw IP, or Ethernet / cooked / loopback headers (with VLAN tags). */
const framedArb = fc.record({
  ip: fc.oneof(ipv4Arb, ipv6Arb),
  link: fc.constantFrom(101, 1, 1, 113, 276, 0, 108, 228, 229, 12, 14),
  tags: fc.array(fc.constantFrom(0x8100, 0x88a8, 0x9100), { maxLength: 3 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
}).map(({ ip, link, tags, cut }) => {
  const v6 = ip[0]! >> 4 === 6;
  const type = v6 ? 0x86dd : 0x0800;
  // Build the EtherType chain: the first TPID in the header, each tag carries the next type.
  const chain = [...tags, type];
  const tagged: number[] = [];
  for (let i = 1; i < chain.length; i++) tagged.push(0, 7, chain[i]! >> 8, chain[i]! & 0xff);
  let frame: number[];
  if (link === 1) frame = [...Array<number>(12).fill(2), chain[0]! >> 8, chain[0]! & 0xff, ...tagged, ...ip];
  else if (link === 113) frame = [...Array<number>(14).fill(0), chain[0]! >> 8, chain[0]! & 0xff, ...tagged, ...ip];
  else if (link === 276) frame = [chain[0]! >> 8, chain[0]! & 0xff, ...Array<number>(18).fill(0), ...tagged, ...ip];
  else if (link === 0) frame = [...(v6 ? [30, 0, 0, 0] : [2, 0, 0, 0]), ...ip];
  else if (link === 108) frame = [...(v6 ? [0, 0, 0, 24] : [0, 0, 0, 2]), ...ip];
  else frame = ip;
  const data = Uint8Array.from(cut === undefined ? frame : frame.slice(0, cut % (frame.length + 1)));
  return { data, linkType: link };
});

/** A fixture frame with byte overwrites, a truncation and maybe another link type. */
const mangledArb = fc.record({
  base: fc.nat(),
  linkType: fc.oneof(fc.constant(-1), fc.constantFrom(...LINK_TYPES), fc.integer({ min: 0, max: 300 })),
  edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
}).map(({ base, linkType, edits, cut }) => {
  const f = frames[base % frames.length]!;
  const data = Uint8Array.from(f.data);
  for (const [pos, v] of edits) if (data.length > 0) data[pos % data.length] = v;
  return { data: cut === undefined ? data : data.subarray(0, cut % (data.length + 1)), linkType: linkType < 0 ? f.linkType : linkType, from: f.name };
});

const randomArb = fc.record({ data: fc.uint8Array({ maxLength: 160 }), linkType: fc.oneof(fc.constantFrom(...LINK_TYPES), fc.integer({ min: -1, max: 300 })) });

function sameOn(data: Uint8Array, linkType: number): boolean {
  const [got, want] = both(data, 0, data.length, linkType);
  expect(got).toEqual(want);
  return true;
}

describe('decodeSlots = decodePacket on generated and damaged frames (fast-check)', () => {
  it('mangled fixture frames: byte overwrites, truncations, other link types', () => {
    expect(frames.length).toBeGreaterThan(100);
    fc.assert(fc.property(mangledArb, ({ data, linkType }) => sameOn(data, linkType)), { numRuns: 3000 });
  });

  it('fully random bytes under every link type', () => {
    fc.assert(fc.property(randomArb, ({ data, linkType }) => sameOn(data, linkType)), { numRuns: 2000 });
  });

  it('generated IPv4/IPv6 frames: options, fragments, lengths, extension-header chains, SIP payloads, VLAN tags, truncations', () => {
    const coverage = new Coverage();
    fc.assert(
      fc.property(framedArb, ({ data, linkType }) => {
        const [got, want] = both(data, 0, data.length, linkType);
        expect(got).toEqual(want);
        coverage.add(got);
        return true;
      }),
      { numRuns: 3000 },
    );
    for (const f of ['sip=true', 'sip=false', 'ip.opt.type', 'ip.hdr_len', 'tcp.flags.cwr=true', 'icmp.code', 'udp.srcport']) expect(coverage.has(f), f).toBe(true);
  });

  it('in place: a frame inside a larger buffer (start > 0, bytes after end) decodes as the frame alone', () => {
    const inside = fc.record({
      frame: fc.oneof(framedArb, mangledArb),
      before: fc.uint8Array({ minLength: 1, maxLength: 40 }),
      // Often an IP-looking byte right after the frame: a decoder reading past `end` would see a header.
      after: fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.tuple(fc.constantFrom(0x45, 0x46, 0x60), fc.uint8Array({ maxLength: 40 })).map(([b, rest]) => Uint8Array.of(b, ...rest))),
    });
    const alone = new Slots();
    fc.assert(
      fc.property(inside, ({ frame: { data, linkType }, before, after }) => {
        const buf = new Uint8Array(before.length + data.length + after.length);
        buf.set(before);
        buf.set(data, before.length);
        buf.set(after, before.length + data.length);
        decodeSlots(alone, data, 0, data.length, linkType);
        fillGeoSlots(alone, GEO);
        const [got, want] = both(buf, before.length, before.length + data.length, linkType);
        expect(slotsToFields(alone)).toEqual(want);
        expect(got).toEqual(want);
        expect(Array.from(slots.V)).toEqual(Array.from(alone.V));
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});
