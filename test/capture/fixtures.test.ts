/**
 * Every fixture (made by scapy/tcpdump/editcap/mergecap/text2pcap, see make-fixtures.sh) is read and
 * decoded, and each packet is compared with what tshark says about it: with the tshark output committed
 * next to the fixtures (always), and with tshark run now where it is installed (CI installs it).
 */
import { describe, expect, it } from 'vitest';
import { decodePacket, type CaptureRecord } from '../../src/capture/index.js';
import { expectedFromTshark, fixture, FIXTURES, goldenRows, parseTsv, pick, readFixture, recordFacts, runTshark, type Row } from './helpers.js';
import { needsTool } from '../helpers/tools.js';
import { readdirSync } from 'node:fs';

/** Fixtures read cleanly from start to end, with their format and link types. */
const CLEAN: ReadonlyArray<readonly [string, 'pcap' | 'pcapng', number[]]> = [
  ['mixed-le-usec.pcap', 'pcap', [1]],
  ['mixed-nsec.pcap', 'pcap', [1]],
  ['mixed-be-usec.pcap', 'pcap', [1]],
  ['vlan.pcap', 'pcap', [1]],
  ['raw-ip.pcap', 'pcap', [101]],
  ['raw-ipv4.pcap', 'pcap', [228]],
  ['raw-ipv6.pcap', 'pcap', [229]],
  ['sll.pcap', 'pcap', [113]],
  ['sll2.pcap', 'pcap', [276]],
  ['loopback-null.pcap', 'pcap', [0]],
  ['snaplen.pcap', 'pcap', [1]],
  ['two-interfaces.pcapng', 'pcapng', [1, 101]],
  ['spb.pcapng', 'pcapng', [1]],
  ['text2pcap.pcapng', 'pcapng', [1]],
  ['ipv6-ext.pcap', 'pcap', [1]],
  ['magic-wan.pcap', 'pcap', [1]],
];

function compare(records: CaptureRecord[], rows: Row[], count = rows.length): void {
  expect(records.length).toBeGreaterThanOrEqual(count);
  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    const row = rows[i]!;
    const facts = recordFacts(r, row);
    expect(facts.actual, `record ${i + 1}`).toEqual(facts.expected);
    if (row['frame.interface_id'] !== '') expect(r.interfaceId).toBe(Number(row['frame.interface_id']));
    const expected = expectedFromTshark(row);
    const { packet, problems } = decodePacket(r);
    // When the IPv4 header (options) is cut short tshark stops before the destination and the options;
    // rulekit keeps every field whose bytes were captured. Compare what tshark did show.
    if (problems?.some((p) => p.data.layer === 'IPv4')) {
      delete expected['ip.opt.type'];
      for (const [k, v] of Object.entries(expected)) if (v === undefined || v === '') delete expected[k as keyof typeof expected];
    }
    expect(pick(packet, expected), `packet ${i + 1}`).toEqual(expected);
  }
}

describe.each(CLEAN)('fixture %s', (name, format, linkTypes) => {
  it('reads every record without diagnostics, in the right format and link types', async () => {
    const { records, summary } = await readFixture(name);
    expect(summary.format).toBe(format);
    expect(summary.diagnostics).toEqual([]);
    expect(summary.complete).toBe(true);
    expect(records.length).toBe(goldenRows(name).length);
    expect([...new Set(records.map((r) => r.linkType))].sort((a, b) => a - b)).toEqual(linkTypes);
    records.forEach((r, i) => expect(r.index).toBe(i));
  });

  it('decodes every packet as the committed tshark output says', async () => {
    const { records } = await readFixture(name);
    compare(records, goldenRows(name));
  });

  needsTool('tshark')('decodes every packet as tshark run now says', async () => {
    const rows = parseTsv(runTshark(fixture(name)));
    expect(rows.length).toBeGreaterThan(0);
    const { records } = await readFixture(name);
    expect(records.length).toBe(rows.length);
    compare(records, rows);
  });
});

const DAMAGED = ['truncated-end.pcap', 'corrupt-record.pcap', 'corrupt-block.pcapng'];

describe('the fixture list', () => {
  it('names every capture file in test/fixtures/capture, so none is left unchecked', () => {
    const files = readdirSync(FIXTURES).filter((f) => /\.pcap(ng)?$/.test(f)).sort();
    expect(files.length).toBeGreaterThan(0);
    expect([...CLEAN.map(([name]) => name), ...DAMAGED].sort()).toEqual(files);
  });
});

describe('damaged fixtures', () => {
  it('truncated-end.pcap: all complete records, then a truncation diagnostic at the last record offset', async () => {
    const { records, summary } = await readFixture('truncated-end.pcap');
    const full = await readFixture('mixed-le-usec.pcap');
    expect(records.length).toBe(full.records.length - 1);
    compare(records, goldenRows('mixed-le-usec.pcap'), records.length);
    expect(summary.diagnostics.map((d) => d.code)).toEqual(['capture-truncated-record']);
    expect(summary.diagnostics[0]!.data.offset).toBe(full.records.at(-1)!.offset);
    expect(summary.diagnostics[0]!.message).toMatch(/^At byte \d+: the file ends inside pcap record 31/);
  });

  it('corrupt-record.pcap: reports the corrupt record at its offset, resynchronises, and reads the rest', async () => {
    const { records, summary } = await readFixture('corrupt-record.pcap');
    const full = await readFixture('mixed-le-usec.pcap');
    const bad = full.records[2]!;
    expect(summary.diagnostics.map((d) => [d.code, d.data.offset])).toEqual([
      ['capture-corrupt-record', bad.offset],
      ['capture-resynchronised', bad.offset],
    ]);
    expect(summary.diagnostics[1]!.data.resumedAt).toBe(full.records[3]!.offset);
    // Every record but the corrupt one, with the same bytes and timestamps.
    const expected = full.records.filter((_, i) => i !== 2);
    expect(records.map((r) => [r.offset, r.timestampNs, Array.from(r.data)])).toEqual(expected.map((r) => [r.offset, r.timestampNs, Array.from(r.data)]));
    // The records read are those tshark reads in the intact file (tshark itself misreads the damaged one:
    // its format heuristics take it for another pcap variant).
    const rows = goldenRows('mixed-le-usec.pcap').filter((_, i) => i !== 2).map((row, i) => ({ ...row, 'frame.number': String(i + 1) }));
    compare(records, rows);
  });

  it('corrupt-block.pcapng: reports the bad block length at its offset, resynchronises on the next block', async () => {
    const { records, summary } = await readFixture('corrupt-block.pcapng');
    const full = await readFixture('two-interfaces.pcapng');
    const bad = full.records[3]!;
    expect(summary.diagnostics.map((d) => [d.code, d.data.offset])).toEqual([
      ['capture-corrupt-record', bad.offset],
      ['capture-resynchronised', bad.offset],
    ]);
    expect(summary.diagnostics[0]!.message).toContain('length 4294967280');
    expect(records.map((r) => r.offset)).toEqual(full.records.filter((_, i) => i !== 3).map((r) => r.offset));
    compare(records, goldenRows('corrupt-block.pcapng'));
  });
});
