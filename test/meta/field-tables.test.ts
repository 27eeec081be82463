/**
 * The network field is declared in several tables: the scheme (the language), the capture decoder, the
 * slots decoder and the Wireshark export. These tests hold the tables against the scheme, so that a field
 * added to one and not the others fails here, naming the field and the table. A field that a table
 * deliberately leaves out is listed below with the reason; README.md ("How to add a field") has the steps.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { NETWORK_FIELDS, type FieldDef } from '../../src/expression/index.js';
import { DECODED_FIELDS, FIELD_GROUPS, SLOT_FIELDS, decodePacket, readCaptureAll, type GeoIpLookup, type SlotKind } from '../../src/capture/index.js';
import { WIRESHARK_FIELDS, toWireshark } from '../../src/export/index.js';
import { FIXTURES, fixtureBytes } from '../capture/helpers.js';

const SCHEME = 'the scheme (NETWORK_FIELDS, src/expression/scheme.ts)';
const GROUPS = 'the capture decoder (FIELD_GROUPS, src/capture/fields.ts)';
const DECODER = 'decodePacket (src/capture/decode.ts, over every capture fixture)';
const SLOTS = 'the slots decoder (SLOT_FIELDS, src/capture/slots.ts)';
const WIRESHARK = 'the Wireshark export (WIRESHARK_FIELDS, src/export/wireshark.ts)';

const byName = new Map<string, FieldDef>(NETWORK_FIELDS.map((f) => [f.name, f]));
const schemeNames = NETWORK_FIELDS.map((f) => f.name);

/** Fields the evaluator derives from others: no decoder fills them. */
const DERIVED = new Set(NETWORK_FIELDS.filter((f) => f.anyOf).map((f) => f.name));

/** Scheme fields that are not slot fields, and why (a ruleset reading them is simulated on packet objects). */
const NOT_SLOTS: Readonly<Record<string, string>> = {
  'ip.geoip.country': 'derived: source OR destination country', 'ip.geoip.asnum': 'derived: an alias of ip.src.asnum',
  'cf.colo.name': 'set by the caller, not decoded', 'cf.colo.region': 'set by the caller, not decoded',
  ip: 'raw header bytes', tcp: 'raw header bytes', udp: 'raw header bytes', icmp: 'raw header bytes',
};

/** Scheme fields without a Wireshark display-filter field, and why (the export reports them). */
const NOT_WIRESHARK: Readonly<Record<string, string>> = {
  'ip.src.country': 'no geo data in tshark here', 'ip.dst.country': 'no geo data in tshark here', 'ip.geoip.country': 'no geo data in tshark here',
  'ip.src.asnum': 'no geo data in tshark here', 'ip.dst.asnum': 'no geo data in tshark here', 'ip.geoip.asnum': 'no geo data in tshark here',
  'cf.colo.name': 'a Cloudflare data center, not in the packet', 'cf.colo.region': 'a Cloudflare data center, not in the packet',
  ip: 'raw header bytes (bit_slice)', tcp: 'raw header bytes (bit_slice)', udp: 'raw header bytes (bit_slice)', icmp: 'raw header bytes (bit_slice)',
  sip: "rulekit's own SIP heuristic",
};

/** The slot kind a scheme field's type needs. */
function slotKind(f: FieldDef): SlotKind {
  if (f.name === 'ip.proto') return 'proto';
  if (f.country) return 'geo';
  return f.type === 'Int' ? 'int' : f.type === 'Bool' ? 'bool' : f.type === 'Ip' ? 'ip' : ('none' as SlotKind);
}

const missingFrom = (names: Iterable<string>, table: Iterable<string>) => {
  const have = new Set(table);
  return [...new Set(names)].filter((n) => !have.has(n));
};

describe('field tables agree with the scheme', () => {
  it('the capture decoder groups every scheme field and nothing else', () => {
    expect(missingFrom(schemeNames, Object.keys(FIELD_GROUPS)), `fields in ${SCHEME} but not in ${GROUPS}`).toEqual([]);
    expect(missingFrom(Object.keys(FIELD_GROUPS), schemeNames), `fields in ${GROUPS} but not in ${SCHEME}`).toEqual([]);
    const decodable = schemeNames.filter((n) => !DERIVED.has(n));
    expect(missingFrom(decodable, DECODED_FIELDS), `fields in ${SCHEME} but not in DECODED_FIELDS (src/capture/fields.ts)`).toEqual([]);
    expect(missingFrom(DECODED_FIELDS, decodable), `DECODED_FIELDS (src/capture/fields.ts) holds fields the scheme derives or lacks`).toEqual([]);
  });

  it('decodePacket fills every decodable scheme field, with a value of the scheme type, and no other', async () => {
    const geoip: GeoIpLookup = { lookupV4: () => ({ country: 'BR', asn: 64500 }), lookupV6: () => ({ country: 'DE', asn: 64510 }), lookup: () => ({ country: 'BR', asn: 64500 }) };
    const filled = new Map<string, unknown>();
    const files = readdirSync(FIXTURES).filter((f) => /\.(pcap|pcapng)$/.test(f));
    for (const file of files) {
      const { records } = await readCaptureAll(fixtureBytes(file));
      for (const r of records) {
        const { packet } = decodePacket(r, { geoip, colo: { name: 'ams01', region: 'WEUR' } });
        for (const [k, v] of Object.entries(packet)) if (v !== undefined && !filled.has(k)) filled.set(k, v);
      }
    }
    const decodable = schemeNames.filter((n) => !DERIVED.has(n));
    expect(missingFrom(decodable, filled.keys()), `fields in ${SCHEME} that ${DECODER} never fills (fill them in decode.ts, or add a fixture that has them)`).toEqual([]);
    expect(missingFrom(filled.keys(), decodable), `fields ${DECODER} fills that are not in ${SCHEME}`).toEqual([]);
    const typeOf = (v: unknown) => (v instanceof Uint8Array ? 'String' : typeof v === 'number' ? 'Int' : typeof v === 'boolean' ? 'Bool' : 'String');
    const wrong = [...filled].filter(([k, v]) => {
      const t = byName.get(k)?.type;
      return t !== undefined && (t === 'Ip' ? typeof v !== 'string' : typeOf(v) !== t);
    });
    expect(wrong.map(([k, v]) => `${k}: ${typeof v} for ${byName.get(k)?.type}`), `${DECODER} gives values of another type than ${SCHEME}`).toEqual([]);
  });

  it('the slots decoder holds every scheme field of a slot type, with the kind its type needs, or says why not', () => {
    const slotNames = SLOT_FIELDS.map(([n]) => n);
    expect(missingFrom(slotNames, schemeNames), `fields in ${SLOTS} but not in ${SCHEME}`).toEqual([]);
    const wanted = schemeNames.filter((n) => !(n in NOT_SLOTS));
    expect(missingFrom(wanted, slotNames), `fields in ${SCHEME} but neither in ${SLOTS} nor in NOT_SLOTS of this test`).toEqual([]);
    expect(slotNames.filter((n) => n in NOT_SLOTS), `fields in ${SLOTS} and in NOT_SLOTS of this test`).toEqual([]);
    expect(missingFrom(Object.keys(NOT_SLOTS), schemeNames), `NOT_SLOTS of this test names fields not in ${SCHEME}`).toEqual([]);
    const wrongKind = SLOT_FIELDS.filter(([n, kind]) => byName.has(n) && slotKind(byName.get(n)!) !== kind);
    expect(wrongKind.map(([n, k]) => `${n}: ${k} for ${byName.get(n)!.type}`), `${SLOTS} kinds that do not fit the type in ${SCHEME}`).toEqual([]);
  });

  it('the Wireshark export spells every scheme field, with its type, or reports that it cannot', () => {
    const ws = Object.keys(WIRESHARK_FIELDS);
    expect(missingFrom(ws, schemeNames), `fields in ${WIRESHARK} but not in ${SCHEME}`).toEqual([]);
    const wanted = schemeNames.filter((n) => !(n in NOT_WIRESHARK));
    expect(missingFrom(wanted, ws), `fields in ${SCHEME} but neither in ${WIRESHARK} nor in NOT_WIRESHARK of this test`).toEqual([]);
    expect(ws.filter((n) => n in NOT_WIRESHARK), `fields in ${WIRESHARK} and in NOT_WIRESHARK of this test`).toEqual([]);
    expect(missingFrom(Object.keys(NOT_WIRESHARK), schemeNames), `NOT_WIRESHARK of this test names fields not in ${SCHEME}`).toEqual([]);
    const wrong = Object.entries(WIRESHARK_FIELDS).filter(([n, w]) => {
      const f = byName.get(n);
      if (!f) return false;
      return !!w.bool !== (f.type === 'Bool') || !!w.proto !== (n === 'ip.proto') || (f.type === 'Ip' && !w.v6);
    });
    expect(wrong.map(([n]) => n), `${WIRESHARK} rows whose bool/proto/IPv6 spelling does not fit the type in ${SCHEME}`).toEqual([]);
    // What the table leaves out, the export reports rather than guesses.
    for (const name of Object.keys(NOT_WIRESHARK)) {
      const f = byName.get(name)!;
      if (f.rawHeader) continue;
      const text = f.type === 'Bool' ? name : f.type === 'Int' ? `${name} == 1` : f.type === 'Ip' ? `${name} == 192.0.2.1` : `${name} == "${f.country ? 'BR' : 'x'}"`;
      const r = toWireshark(text);
      expect(r.diagnostics.map((d) => d.code), `${text}: ${WIRESHARK}`).toContain('no-wireshark-equivalent');
    }
  });
});
