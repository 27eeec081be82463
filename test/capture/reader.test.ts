/** The streaming reader: formats, chunking, timestamps, and diagnostics on damaged input. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CAPTURE_CODES, CaptureParser, decodePacket, readCapture, readCaptureAll, readCaptureBatches, type CaptureRecord } from '../../src/capture/index.js';
import { interfaceTimestamp, withTimestampUnits } from '../../src/capture/pcapng.js';
import { fixtureBytes, readFixture } from './helpers.js';

const essentials = (rs: CaptureRecord[]) => rs.map((r) => [r.index, r.offset, r.linkType, r.interfaceId, r.timestampNs, r.capturedLength, r.originalLength, Array.from(r.data)]);

/** Split bytes at the given cut points. */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

function le32(n: number): number[] {
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];
}
function le16(n: number): number[] {
  return [n & 255, (n >>> 8) & 255];
}
function block(type: number, body: number[]): number[] {
  const len = 12 + body.length;
  return [...le32(type), ...le32(len), ...body, ...le32(len)];
}
const SHB = block(0x0a0d0d0a, [...le32(0x1a2b3c4d), ...le16(1), ...le16(0), ...le32(0xffffffff), ...le32(0xffffffff)]);
function idb(linkType: number, options: number[] = []): number[] {
  return block(1, [...le16(linkType), 0, 0, ...le32(0), ...options]);
}
function epb(iface: number, high: number, low: number, data: number[]): number[] {
  const pad = (4 - (data.length % 4)) % 4;
  return block(6, [...le32(iface), ...le32(high), ...le32(low), ...le32(data.length), ...le32(data.length), ...data, ...new Array(pad).fill(0)]);
}
const IPV4_UDP = [0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0, 53, 0, 54, 0, 8, 0, 0];

describe('formats', () => {
  it('little-endian, big-endian and nanosecond pcaps and the pcapng hold the same packets', async () => {
    const le = (await readFixture('mixed-le-usec.pcap')).records;
    const be = (await readFixture('mixed-be-usec.pcap')).records;
    const ns = (await readFixture('mixed-nsec.pcap')).records;
    const ng = (await readFixture('two-interfaces.pcapng')).records;
    expect(le.length).toBe(31);
    for (const other of [be, ns, ng.slice(0, 31)]) expect(other.map((r) => Array.from(r.data))).toEqual(le.map((r) => Array.from(r.data)));
    expect(be.map((r) => r.timestampNs)).toEqual(le.map((r) => r.timestampNs));
    // scapy stamped packet i at 1700000000.123456789 + i * 0.001000001 s; the nanosecond files keep it exactly.
    expect(ns.map((r) => r.timestampNs)).toEqual(ns.map((_, i) => 1700000000123456789n + BigInt(i) * 1000001n));
    expect(ng.slice(0, 31).map((r) => r.timestampNs)).toEqual(ns.map((r) => r.timestampNs));
    // Microsecond files are the same instants to the microsecond.
    le.forEach((r, i) => expect(Number((r.timestampNs as bigint) - (ns[i]!.timestampNs as bigint))).toBeLessThan(1000));
    // The second interface of the pcapng (raw IP, microsecond resolution).
    expect(ng.slice(31).map((r) => [r.interfaceId, r.linkType, r.timestampNs])).toEqual([
      [1, 101, 1700000100500000000n],
      [1, 101, 1700000100501000000n],
      [1, 101, 1700000100502000000n],
    ]);
  });

  it('spb.pcapng: the EPB and the simple packet blocks, SPBs without timestamps', async () => {
    const { records } = await readFixture('spb.pcapng');
    const vlan = (await readFixture('vlan.pcap')).records;
    expect(records.map((r) => Array.from(r.data))).toEqual(vlan.map((r) => Array.from(r.data)));
    expect(records[0]!.timestampNs).toBe(vlan[0]!.timestampNs);
    expect(records.slice(1).every((r) => r.timestampNs === 0n)).toBe(true);
  });

  it('timestamps: number mode approximates the bigint nanoseconds', async () => {
    const exact = (await readFixture('two-interfaces.pcapng')).records;
    const { records } = await readCaptureAll([fixtureBytes('two-interfaces.pcapng')], { timestamps: 'number' });
    records.forEach((r, i) => {
      expect(typeof r.timestampNs).toBe('number');
      expect(Math.abs((r.timestampNs as number) - Number(exact[i]!.timestampNs))).toBeLessThan(512);
    });
  });

  it('if_tsresol powers of ten and of two, and if_tsoffset', () => {
    expect(interfaceTimestamp(withTimestampUnits(1, 0, 6, 0n), 0, 1_500_000, false)).toBe(1_500_000_000n);
    expect(interfaceTimestamp(withTimestampUnits(1, 0, 9, 0n), 1, 5, false)).toBe(4294967301n);
    expect(interfaceTimestamp(withTimestampUnits(1, 0, 12, 0n), 0, 123_456, false)).toBe(123n);
    expect(interfaceTimestamp(withTimestampUnits(1, 0, 0x80 | 10, 0n), 0, 1024 * 3, false)).toBe(3_000_000_000n);
    expect(interfaceTimestamp(withTimestampUnits(1, 0, 6, 100n), 0, 1, false)).toBe(100_000_001_000n);
    expect(interfaceTimestamp(withTimestampUnits(1, 0, 0x80 | 10, 0n), 0, 1024 * 3, true)).toBe(3e9);
  });

  it('a pcapng built here: if_tsresol option, two sections of interfaces, unknown and custom blocks skipped', async () => {
    const tsresol9 = [...le16(9), ...le16(1), 9, 0, 0, 0, ...le16(0), ...le16(0)];
    const bytes = Uint8Array.from([
      ...SHB,
      ...idb(101, tsresol9),
      ...block(0x00000bad, [1, 2, 3, 4, 0, 0, 0, 0]),
      ...block(0x12345678, []),
      ...epb(0, 0, 77, IPV4_UDP),
      ...SHB,
      ...idb(228),
      ...epb(0, 0, 5, IPV4_UDP),
    ]);
    const { records, summary } = await readCaptureAll(bytes);
    expect(summary.diagnostics).toEqual([]);
    expect(records.map((r) => [r.linkType, r.timestampNs])).toEqual([
      [101, 77n],
      [228, 5_000n],
    ]);
    expect(decodePacket(records[0]!).packet['udp.dstport']).toBe(54);
  });

  it('a packet block for an undeclared interface is reported and skipped', async () => {
    const bytes = Uint8Array.from([...SHB, ...idb(101), ...epb(3, 0, 1, IPV4_UDP), ...epb(0, 0, 2, IPV4_UDP)]);
    const { records, summary } = await readCaptureAll(bytes);
    expect(records.length).toBe(1);
    expect(summary.diagnostics.map((d) => [d.code, d.data.offset])).toEqual([['capture-unknown-interface', SHB.length + 20]]);
  });

  it('a big-endian pcapng section is read', async () => {
    const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
    const be16 = (n: number) => [(n >>> 8) & 255, n & 255];
    const bblock = (type: number, body: number[]) => [...be32(type), ...be32(12 + body.length), ...body, ...be32(12 + body.length)];
    const bytes = Uint8Array.from([
      ...bblock(0x0a0d0d0a, [...be32(0x1a2b3c4d), ...be16(1), ...be16(0), ...be32(0xffffffff), ...be32(0xffffffff)]),
      ...bblock(1, [...be16(101), 0, 0, ...be32(0)]),
      ...bblock(6, [...be32(0), ...be32(0), ...be32(9), ...be32(28), ...be32(28), ...IPV4_UDP]),
    ]);
    const { records, summary } = await readCaptureAll(bytes);
    expect(summary.diagnostics).toEqual([]);
    expect(records.map((r) => [r.linkType, r.timestampNs, r.capturedLength])).toEqual([[101, 9000n, 28]]);
  });
});

describe('streaming', () => {
  it('any split of the input into chunks gives the same records', async () => {
    for (const name of ['two-interfaces.pcapng', 'mixed-be-usec.pcap', 'spb.pcapng']) {
      const bytes = fixtureBytes(name);
      const whole = essentials((await readCaptureAll(bytes)).records);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
          const { records, summary } = await readCaptureAll(split(bytes, cuts));
          expect(summary.diagnostics).toEqual([]);
          expect(essentials(records)).toEqual(whole);
        }),
        { numRuns: 40 },
      );
    }
  });

  it('one-byte chunks through the push/read API', () => {
    const bytes = fixtureBytes('mixed-nsec.pcap');
    const p = new CaptureParser();
    let n = 0;
    for (const b of bytes) {
      p.push(Uint8Array.of(b));
      while (p.read()) n++;
    }
    p.end();
    while (p.read()) n++;
    expect(n).toBe(31);
    expect(p.summary()).toMatchObject({ records: 31, bytes: bytes.length, diagnostics: [], complete: true, format: 'pcap' });
  });

  it('copyData gives records that do not share the input buffer', async () => {
    const bytes = fixtureBytes('raw-ip.pcap');
    const { records } = await readCaptureAll([bytes], { copyData: true });
    expect(records.every((r) => r.data.buffer !== bytes.buffer)).toBe(true);
    const views = (await readCaptureAll([bytes])).records;
    expect(views.every((r) => r.data.buffer === bytes.buffer)).toBe(true);
    // Node Buffers in, plain Uint8Arrays out.
    const fromBuffer = (await readFixture('raw-ip.pcap')).records;
    expect(fromBuffer.every((r) => r.data.constructor === Uint8Array)).toBe(true);
  });

  it('readCapture, readCaptureBatches and readCaptureAll give the same records and summary', async () => {
    const chunks = () => split(fixtureBytes('corrupt-block.pcapng'), [100, 1000, 3000, 5000]);
    const all = await readCaptureAll(chunks());
    const single: CaptureRecord[] = [];
    const gen = readCapture(chunks());
    let n = await gen.next();
    for (; !n.done; n = await gen.next()) single.push(n.value);
    const batched: CaptureRecord[] = [];
    const bgen = readCaptureBatches(chunks());
    let b = await bgen.next();
    let batches = 0;
    for (; !b.done; b = await bgen.next()) {
      batches++;
      batched.push(...b.value);
    }
    expect(essentials(single)).toEqual(essentials(all.records));
    expect(essentials(batched)).toEqual(essentials(all.records));
    expect(n.value).toEqual(all.summary);
    expect(b.value).toEqual(all.summary);
    expect(batches).toBeLessThanOrEqual(5);
    expect(all.summary.diagnostics.length).toBe(2);
  });

  it('a web ReadableStream is a source', async () => {
    const bytes = fixtureBytes('sll2.pcap');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.subarray(0, 30));
        c.enqueue(bytes.subarray(30));
        c.close();
      },
    });
    const { records, summary } = await readCaptureAll(stream);
    expect(records.length).toBe(2);
    expect(summary.diagnostics).toEqual([]);
  });

  it('modified (24-byte record header) and big-endian nanosecond pcaps built here', async () => {
    const mod = [...le32(0xa1b2cd34), ...le16(2), ...le16(4), ...le32(0), ...le32(0), ...le32(65535), ...le32(101)];
    mod.push(...le32(10), ...le32(20), ...le32(28), ...le32(28), ...new Array(8).fill(0), ...IPV4_UDP);
    const a = await readCaptureAll(Uint8Array.from(mod));
    expect(a.summary.diagnostics).toEqual([]);
    expect(a.records.map((r) => [r.timestampNs, r.capturedLength, decodePacket(r).packet['udp.srcport']])).toEqual([[10_000_020_000n, 28, 53]]);
    const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
    const ns = [...be32(0xa1b23c4d), 0, 2, 0, 4, ...be32(0), ...be32(0), ...be32(65535), ...be32(101), ...be32(3), ...be32(999_999_999), ...be32(28), ...be32(60), ...IPV4_UDP];
    const b = await readCaptureAll(Uint8Array.from(ns));
    expect(b.records.map((r) => [r.timestampNs, r.capturedLength, r.originalLength])).toEqual([[3_999_999_999n, 28, 60]]);
  });

  it('onDiagnostic sees each diagnostic as it is found; input after end() is ignored', async () => {
    const seen: string[] = [];
    await readCaptureAll(fixtureBytes('corrupt-block.pcapng'), { onDiagnostic: (d) => seen.push(d.code) });
    expect(seen).toEqual(['capture-corrupt-record', 'capture-resynchronised']);
    const p = new CaptureParser();
    p.end();
    p.push(fixtureBytes('raw-ip.pcap'));
    expect(p.read()).toBeUndefined();
    expect(p.summary().diagnostics.map((d) => d.code)).toEqual(['capture-empty']);
  });

  it('the generator returns the summary', async () => {
    const it = readCapture([fixtureBytes('raw-ipv6.pcap')]);
    let n = await it.next();
    expect(n.done).toBe(false);
    n = await it.next();
    expect(n.done).toBe(true);
    expect(n.value).toMatchObject({ records: 1, format: 'pcap', complete: true });
  });
});

describe('bad input', () => {
  const codesOf = async (source: Parameters<typeof readCaptureAll>[0]) => (await readCaptureAll(source)).summary.diagnostics.map((d) => [d.code, d.data.offset]);

  it('empty, too short, unknown and gzip-compressed input', async () => {
    expect(await codesOf(new Uint8Array(0))).toEqual([['capture-empty', 0]]);
    expect(await codesOf(Uint8Array.of(0xd4, 0xc3))).toEqual([['capture-truncated-header', 0]]);
    expect(await codesOf(Uint8Array.of(0xd4, 0xc3, 0xb2, 0xa1, 2, 0))).toEqual([['capture-truncated-header', 0]]);
    expect((await readCaptureAll(Uint8Array.of(0xd4, 0xc3, 0xb2, 0xa1, 2, 0))).summary.diagnostics[0]!.message).toBe('At byte 0: the file ends inside the 24-byte pcap file header (6 bytes present).');
    expect(await codesOf(new TextEncoder().encode('hello world'))).toEqual([['capture-unknown-format', 0]]);
    const gz = await readCaptureAll(Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0));
    expect(gz.summary.diagnostics[0]!.message).toContain('gzip');
    expect(gz.summary.complete).toBe(false);
  });

  it('a source that yields non-bytes or fails is reported, not thrown', async () => {
    expect(await codesOf(['not bytes' as unknown as Uint8Array])).toEqual([['capture-bad-chunk', 0]]);
    async function* failing() {
      yield fixtureBytes('raw-ip.pcap').subarray(0, 50);
      throw new Error('disk on fire');
    }
    const r = await readCaptureAll(failing());
    expect(r.summary.diagnostics.map((d) => d.code)).toContain('capture-bad-chunk');
    expect(r.summary.diagnostics[0]!.message).toContain('disk on fire');
    expect(r.summary.diagnostics[0]!.data.offset).toBe(50);
  });

  it('the diagnostic limit keeps the first ones and counts the rest', async () => {
    // 30 records for an undeclared interface, limit 5.
    const body = [...SHB, ...idb(101)];
    for (let i = 0; i < 30; i++) body.push(...epb(7, 0, i, IPV4_UDP));
    const { summary } = await readCaptureAll(Uint8Array.from(body), { maxDiagnostics: 5 });
    expect(summary.diagnostics.length).toBe(6);
    expect(summary.diagnostics.at(-1)!.code).toBe('capture-too-many-diagnostics');
    expect(summary.droppedDiagnostics).toBe(25);
  });

  it('garbage after a corrupt record that never resynchronises stops with a diagnostic', async () => {
    const good = fixtureBytes('raw-ipv4.pcap');
    const bytes = new Uint8Array(good.length + 64);
    bytes.set(good);
    bytes.fill(0xee, good.length);
    const { records, summary } = await readCaptureAll(bytes);
    expect(records.length).toBe(1);
    expect(summary.diagnostics.map((d) => [d.code, d.data.offset])).toEqual([
      ['capture-corrupt-record', good.length],
      ['capture-resync-failed', good.length],
    ]);
  });

  const checkDiagnostics = (bytes: Uint8Array, records: CaptureRecord[], diags: { code: string; data: { offset: number } }[]) => {
    for (const d of diags) {
      expect(Object.hasOwn(CAPTURE_CODES, d.code)).toBe(true);
      expect(Number.isInteger(d.data.offset)).toBe(true);
      expect(d.data.offset).toBeGreaterThanOrEqual(0);
      expect(d.data.offset).toBeLessThanOrEqual(bytes.length);
    }
    for (const r of records) {
      expect(r.offset + r.capturedLength).toBeLessThanOrEqual(bytes.length);
      expect(r.data.length).toBe(r.capturedLength);
      expect(() => decodePacket(r)).not.toThrow();
    }
  };

  it('random bytes, with or without a valid magic, never throw', async () => {
    const magics = [[], [0xd4, 0xc3, 0xb2, 0xa1], [0xa1, 0xb2, 0x3c, 0x4d], SHB.slice(0, 12)];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...magics), fc.uint8Array({ maxLength: 2000 }), fc.array(fc.nat(), { maxLength: 5 }), async (magic, tail, cuts) => {
        const bytes = Uint8Array.from([...magic, ...tail]);
        const { records, summary } = await readCaptureAll(split(bytes, cuts));
        checkDiagnostics(bytes, records, summary.diagnostics);
      }),
      { numRuns: 300 },
    );
  });

  it('truncations and bit flips of real fixtures never throw and report offsets inside the file', async () => {
    for (const name of ['mixed-le-usec.pcap', 'two-interfaces.pcapng']) {
      const original = fixtureBytes(name);
      const clean = (await readCaptureAll(original)).records.length;
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: original.length }),
          fc.array(fc.tuple(fc.nat({ max: original.length - 1 }), fc.integer({ min: 0, max: 7 })), { maxLength: 8 }),
          async (keep, flips) => {
            const bytes = original.slice(0, keep);
            for (const [at, bit] of flips) if (at < bytes.length) bytes[at]! ^= 1 << bit;
            const { records, summary } = await readCaptureAll([bytes]);
            checkDiagnostics(bytes, records, summary.diagnostics);
            expect(records.length).toBeLessThanOrEqual(clean + 8);
            // A cut that is not on a record boundary is always reported.
            if (flips.length === 0 && keep < original.length && keep > 0) {
              const ends = new Set([...(await readCaptureAll(original)).records.map((r) => r.offset)]);
              if (!ends.has(keep) && keep > 28) expect(summary.diagnostics.length).toBeGreaterThan(0);
            }
          },
        ),
        { numRuns: 150 },
      );
    }
  });
});

describe('pcapng blocks, as draft-ietf-opsawg-pcapng lays them out', () => {
  /** A simple packet block (type 3): original length, then the data padded to 32 bits. */
  function spb(origlen: number, data: number[]): number[] {
    const pad = (4 - (data.length % 4)) % 4;
    return block(3, [...le32(origlen), ...data, ...new Array(pad).fill(0)]);
  }
  /** An interface description with a snap length. */
  const idbSnap = (linkType: number, snap: number) => block(1, [...le16(linkType), 0, 0, ...le32(snap)]);

  it('a simple packet block takes interface 0, captured length the least of original, block room and snap length', async () => {
    const bytes = Uint8Array.from([...SHB, ...idbSnap(101, 20), ...spb(28, IPV4_UDP), ...spb(10, IPV4_UDP.slice(0, 10))]);
    const { records, summary } = await readCaptureAll(bytes);
    expect(summary.diagnostics).toEqual([]);
    expect(records.map((r) => [r.linkType, r.interfaceId, r.capturedLength, r.originalLength, r.timestampNs, r.data.length])).toEqual([
      [101, 0, 20, 28, 0n, 20],
      [101, 0, 10, 10, 0n, 10],
    ]);
    // Snap length 0 means no limit; the original length may exceed what the block holds (cut by the writer).
    const noSnap = await readCaptureAll(Uint8Array.from([...SHB, ...idbSnap(101, 0), ...spb(28, IPV4_UDP), ...spb(4000, IPV4_UDP)]));
    expect(noSnap.records.map((r) => [r.capturedLength, r.originalLength])).toEqual([[28, 28], [28, 4000]]);
    expect(Array.from(noSnap.records[1]!.data)).toEqual(IPV4_UDP);
  });

  it('a simple packet block before any interface, or shorter than 16 bytes, is reported and skipped', async () => {
    const early = await readCaptureAll(Uint8Array.from([...SHB, ...spb(28, IPV4_UDP), ...idb(101), ...spb(28, IPV4_UDP)]));
    expect(early.records.length).toBe(1);
    expect(early.summary.diagnostics.map((d) => [d.code, d.data.offset])).toEqual([['capture-unknown-interface', SHB.length]]);
    const tiny = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101), ...block(3, []), ...spb(28, IPV4_UDP)]));
    expect(tiny.records.length).toBe(1);
    expect(tiny.summary.diagnostics.map((d) => d.code)).toEqual(['capture-bad-block']);
    expect(tiny.summary.diagnostics[0]!.message).toContain('simple packet block');
    expect(tiny.summary.diagnostics[0]!.data.offset).toBe(SHB.length + idb(101).length);
  });

  it('a section header without its byte-order magic, and a block of impossible length, are skipped to the next block', async () => {
    const badShb = block(0x0a0d0d0a, [...le32(0x11223344), ...le16(1), ...le16(0), ...le32(0xffffffff), ...le32(0xffffffff)]);
    const bytes = Uint8Array.from([...SHB, ...idb(101), ...epb(0, 0, 1, IPV4_UDP), ...badShb, ...epb(0, 0, 2, IPV4_UDP)]);
    const { records, summary } = await readCaptureAll(bytes);
    expect(records.map((r) => r.timestampNs)).toEqual([1000n, 2000n]);
    const at = SHB.length + idb(101).length + epb(0, 0, 1, IPV4_UDP).length;
    expect(summary.diagnostics.map((d) => [d.code, d.data.offset, d.data['skipped'], d.data['resumedAt']])).toEqual([
      ['capture-corrupt-record', at, undefined, undefined],
      ['capture-resynchronised', at, badShb.length, at + badShb.length],
    ]);
    expect(summary.diagnostics[0]!.message).toBe(`At byte ${at}: a pcapng section header has no valid byte-order magic (1a2b3c4d); the block is corrupt. Looking for the next plausible block.`);
    expect(summary.diagnostics[1]!.message).toBe(`At byte ${at}: skipped ${badShb.length} corrupt bytes; reading resumed at byte ${at + badShb.length}.`);

    for (const badLen of [8, 30, 13]) {
      const broken = [...le32(6), ...le32(badLen), 0, 0, 0, 0, 0, 0, 0, 0];
      const r = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101), ...broken, ...epb(0, 0, 3, IPV4_UDP)]));
      expect(r.records.map((x) => x.timestampNs), `length ${badLen}`).toEqual([3000n]);
      expect(r.summary.diagnostics.map((d) => [d.code, d.data['blockLength'] ?? d.data['skipped']]), `length ${badLen}`).toEqual([
        ['capture-corrupt-record', badLen],
        ['capture-resynchronised', broken.length],
      ]);
    }
    // A block longer than maxBlockBytes is as corrupt as a short one.
    const epbLength = epb(0, 0, 4, IPV4_UDP).length;
    const big = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101), ...epb(0, 0, 4, IPV4_UDP)]), { maxBlockBytes: epbLength - 4 });
    expect(big.summary.diagnostics[0]!.message).toContain(`has length ${epbLength}, above the limit of ${epbLength - 4} (maxBlockBytes)`);
    const exact = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101), ...epb(0, 0, 4, IPV4_UDP)]), { maxBlockBytes: epb(0, 0, 4, IPV4_UDP).length });
    expect(exact.summary.diagnostics).toEqual([]);
  });

  it('resynchronising skips a packet block that names no declared interface or claims more data than it holds', async () => {
    const garbage = [...le32(0xdeadbeef), ...le32(0xdeadbeef)];
    const wrongIface = epb(5, 0, 8, IPV4_UDP);
    const overlong = epb(0, 0, 9, IPV4_UDP);
    // Captured length field made larger than the block.
    overlong.splice(20, 4, ...le32(200));
    const bytes = Uint8Array.from([...SHB, ...idb(101), ...garbage, ...wrongIface, ...overlong, ...epb(0, 0, 10, IPV4_UDP)]);
    const { records, summary } = await readCaptureAll(bytes);
    expect(records.map((r) => r.timestampNs)).toEqual([10000n]);
    const start = SHB.length + idb(101).length;
    expect(summary.diagnostics.map((d) => [d.code, d.data.offset])).toEqual([
      ['capture-corrupt-record', start],
      ['capture-resynchronised', start],
    ]);
    expect(summary.diagnostics[1]!.data['resumedAt']).toBe(start + garbage.length + wrongIface.length + overlong.length);
  });

  it('the diagnostic limit: exactly the limit kept, then one that says so', async () => {
    const body = [...SHB, ...idb(101)];
    for (let i = 0; i < 3; i++) body.push(...epb(7, 0, i, IPV4_UDP));
    const at3 = await readCaptureAll(Uint8Array.from(body), { maxDiagnostics: 3 });
    expect(at3.summary.diagnostics.map((d) => d.code)).toEqual(['capture-unknown-interface', 'capture-unknown-interface', 'capture-unknown-interface', 'capture-too-many-diagnostics']);
    const cap = at3.summary.diagnostics[3]!;
    expect([cap.message, cap.data['limit']]).toEqual([`At byte ${cap.data.offset}: reached the limit of 3 diagnostics (maxDiagnostics); later ones are counted, not kept.`, 3]);
    expect(at3.summary.droppedDiagnostics).toBe(0);
    const at4 = await readCaptureAll(Uint8Array.from(body), { maxDiagnostics: 4 });
    expect(at4.summary.diagnostics.map((d) => d.code)).toEqual(['capture-unknown-interface', 'capture-unknown-interface', 'capture-unknown-interface']);
  });

  it('a simple packet block of exactly 16 bytes is an empty packet', async () => {
    const { records, summary } = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101), ...spb(0, [])]));
    expect(summary.diagnostics).toEqual([]);
    expect(records.map((r) => [r.capturedLength, r.originalLength])).toEqual([[0, 0]]);
  });

  it('an option that ends exactly at the end of the options is read', async () => {
    const tsresol9 = [...le16(9), ...le16(1), 9, 0, 0, 0];
    const { records } = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101, tsresol9), ...epb(0, 0, 7, IPV4_UDP)]));
    expect(records.map((r) => r.timestampNs)).toEqual([7n]);
    // A zero-length if_tsresol is not read (the default stays).
    const empty = [...le16(9), ...le16(0), ...le16(0), ...le16(0)];
    const d = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101, empty), ...epb(0, 0, 7, IPV4_UDP)]));
    expect(d.records.map((r) => r.timestampNs)).toEqual([7_000n]);
  });

  it('if_tsoffset adds seconds to every timestamp of its interface', async () => {
    const tsoffset = [...le16(14), ...le16(8), ...le32(100), ...le32(0), ...le16(0), ...le16(0)];
    const short = [...le16(14), ...le16(4), ...le32(100), ...le16(0), ...le16(0)];
    const { records } = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101, tsoffset), ...idb(101, short), ...epb(0, 0, 7, IPV4_UDP), ...epb(1, 0, 7, IPV4_UDP)]));
    expect(records.map((r) => r.timestampNs)).toEqual([100_000_007_000n, 7_000n]);
  });

  it('options stop at opt_endofopt and at an option running past the block', async () => {
    const tsresol9 = [...le16(9), ...le16(1), 9, 0, 0, 0];
    const afterEnd = [...le16(0), ...le16(0), ...tsresol9];
    const pastEnd = [...le16(9), ...le16(40), 9, 0, 0, 0];
    const { records } = await readCaptureAll(Uint8Array.from([...SHB, ...idb(101, afterEnd), ...idb(101, pastEnd), ...idb(101, [...tsresol9, ...le16(0), ...le16(0)]), ...epb(0, 0, 7, IPV4_UDP), ...epb(1, 0, 7, IPV4_UDP), ...epb(2, 0, 7, IPV4_UDP)]));
    // Microseconds (the default) where the option was not read; nanoseconds where it was.
    expect(records.map((r) => r.timestampNs)).toEqual([7_000n, 7_000n, 7n]);
  });
});

describe('sources', () => {
  it('a stream that only has getReader (browsers without async-iterable streams) is read to the end and released', async () => {
    const bytes = fixtureBytes('sll2.pcap');
    const chunks = [bytes.subarray(0, 30), bytes.subarray(30)];
    let released = 0;
    const stream = {
      getReader: () => ({
        read: async () => (chunks.length ? { done: false, value: chunks.shift() } : { done: true }),
        releaseLock: () => released++,
      }),
    };
    const { records, summary } = await readCaptureAll(stream as never);
    expect(records.length).toBe(2);
    expect(summary.diagnostics).toEqual([]);
    expect(released).toBe(1);
  });

  it('an ArrayBuffer, and an iterable of ArrayBuffers, are bytes', async () => {
    const bytes = fixtureBytes('raw-ipv6.pcap');
    const buffer = bytes.slice().buffer;
    expect((await readCaptureAll(buffer)).records.length).toBe(1);
    expect((await readCaptureAll([buffer.slice(0, 10), buffer.slice(10)])).records.length).toBe(1);
  });

  it('a source that is neither bytes nor iterable is one bad chunk that names what it was', async () => {
    for (const [source, what] of [[5, 'number'], [null, 'null'], [{}, 'Object']] as const) {
      const r = await readCaptureAll(source as never);
      expect(r.summary.diagnostics.map((d) => [d.code, d.data.offset]), String(source)).toEqual([['capture-bad-chunk', 0]]);
      expect(r.summary.diagnostics[0]!.message).toContain(what);
      expect(r.summary.diagnostics[0]!.message).toMatch(/^At byte 0: the source produced a .* instead of bytes \(Uint8Array or ArrayBuffer\); reading stopped\.$/);
    }
  });
});
