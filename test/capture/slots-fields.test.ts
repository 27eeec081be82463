/**
 * `Slots.only(fields)`: decodeSlots fills only the slot fields a ruleset reads. On those fields (and the IPv6
 * words of the addresses read) the slots must hold what a whole decode holds, frame after frame through one
 * Slots (no value left over from an earlier frame), and every other slot is missing or the whole decode's; a ruleset over a
 * random subset of the slot fields gets through the frame counter the verdicts of the object decoder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePacket, decodeSlots, fillGeoSlots, geoIpFromCsv, IP_WORDS, readCaptureAll, SLOT, SLOT_FIELDS, SLOT_KIND, Slots } from '../../src/capture/index.js';
import type { Packet } from '../../src/expression/index.js';
import { compileRuleset, frameCounter } from '../../src/engine/index.js';
import { writeSyntheticPcap } from '../../bench/capture-gen.js';
import { FIXTURES, fixtureBytes } from './helpers.js';

const GEO = geoIpFromCsv(readFileSync(join(FIXTURES, 'geo.csv'), 'utf8')).lookup;
const FIELDS = SLOT_FIELDS.map(([name]) => name);

interface Frame {
  data: Uint8Array;
  linkType: number;
}

/** Every fixture record, then 3000 records of a generated capture (bench/capture-gen.ts). */
const FRAMES: Frame[] = await (async () => {
  const out: Frame[] = [];
  for (const name of readdirSync(FIXTURES).filter((f) => /\.pcap(ng)?$/.test(f)).sort()) {
    for (const r of (await readCaptureAll(fixtureBytes(name))).records) out.push({ data: r.data, linkType: r.linkType });
  }
  const chunks: Uint8Array[] = [];
  writeSyntheticPcap((c) => chunks.push(c.slice()), 3000, { payloadBytes: 4 });
  const file = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((at, c) => (file.set(c, at), at + c.length), 0);
  for (const r of (await readCaptureAll(file)).records) out.push({ data: r.data, linkType: r.linkType });
  return out;
})();

/** The slots of `fields` (an `ip` field: family, IPv4 value and its four IPv6 words when IPv6) as plain values. */
function readOf(s: Slots, fields: readonly string[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const f of fields) {
    const i = SLOT[f]!;
    if (SLOT_KIND[f] !== 'ip') out[f] = [s.V[i]!];
    else out[f] = s.V[i] === 6 ? [6, s.V[i + 1]!, ...s.W.subarray(IP_WORDS[f]!, IP_WORDS[f]! + 4)] : [s.V[i]!, s.V[i + 1]!];
  }
  return out;
}

function decode(s: Slots, f: Frame): Slots {
  decodeSlots(s, f.data, 0, f.data.length, f.linkType);
  fillGeoSlots(s, GEO);
  return s;
}

const subset = fc.subarray(FIELDS, { minLength: 1 });
const frameOrder = fc.array(fc.integer({ min: 0, max: FRAMES.length - 1 }), { minLength: 1, maxLength: 300 });

describe('Slots.only: a subset of the fields decoded', () => {
  it('has fixture and generated frames', () => {
    expect(FRAMES.length).toBeGreaterThan(3000);
  });

  it('holds on the fields read what a whole decode holds, frame after frame; the rest missing', () => {
    const whole = new Slots();
    fc.assert(
      fc.property(subset, frameOrder, (fields, order) => {
        const part = new Slots().only(fields);
        for (const k of order) {
          const f = FRAMES[k]!;
          expect(readOf(decode(part, f), fields)).toEqual(readOf(decode(whole, f), fields));
          // Other fields (one decoded with a field read, as the flags go together) are missing or the whole decode's.
          for (const o of FIELDS) {
            const v = part.V[SLOT[o]!]!;
            if (!Number.isNaN(v)) expect(v, o).toBe(whole.V[SLOT[o]!]);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the whole decode again after only(every field), and sip toggled after only()', () => {
    const a = new Slots().only(['tcp.dstport']);
    a.sip = true;
    const whole = new Slots();
    for (const f of FRAMES.slice(0, 400)) expect(readOf(decode(a, f), ['tcp.dstport', 'sip'])).toEqual(readOf(decode(whole, f), ['tcp.dstport', 'sip']));
    a.only(FIELDS);
    for (const f of FRAMES.slice(0, 400)) expect(Array.from(decode(a, f).V)).toEqual(Array.from(decode(whole, f).V));
  });
});

/** The integer slot fields and their largest value. */
const INT_MAX: Record<string, number> = { 'tcp.dstport': 65535, 'tcp.srcport': 65535, 'udp.dstport': 65535, 'udp.srcport': 65535, 'ip.len': 65535, 'ip.ttl': 255, 'ip.hdr_len': 255, 'icmp.type': 255, 'icmp.code': 255, 'tcp.flags': 255, 'ip.opt.type': 255 };

/** A random expression over one slot field. */
const predicate: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...Object.entries(INT_MAX)).chain(([f, max]) =>
    fc.oneof(
      fc.tuple(fc.constantFrom('==', '!=', '<', '>=', 'gt', 'le'), fc.integer({ min: 0, max })).map(([op, v]) => `${f} ${op} ${v}`),
      fc.array(fc.integer({ min: 0, max }), { minLength: 1, maxLength: 4 }).map((vs) => `${f} in {${vs.join(' ')} ${Math.min(max, 80)} ${Math.min(max, 53)}}`),
    ),
  ),
  fc.constantFrom('tcp.flags.syn', 'tcp.flags.ack', 'tcp.flags.fin', 'tcp.flags.reset', 'tcp.flags.push', 'sip', 'not tcp.flags.ack'),
  fc.constantFrom('ip.proto == "tcp"', 'ip.proto == "udp"', 'ip.proto in {"icmp" "ipv6-icmp"}', 'ip.src in {10.0.0.0/8 192.168.0.0/16}', 'ip.dst in {10.0.0.0/8 2001:db8::/32}', 'ip.src != 10.0.0.1', 'ip.dst.country == "US"', 'ip.src.asnum in {13335 15169}', 'ip.src.country in {"GB" "DE"}'),
);
const expression = fc.array(predicate, { minLength: 1, maxLength: 3 }).chain((ps) => fc.constantFrom(' and ', ' or ').map((j) => ps.join(j)));

describe('a ruleset over a subset of the slot fields', () => {
  it('gets the verdicts of the object decoder through the frame counter (which decodes only its fields)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('block' as const, 'skip' as const), expression), { minLength: 1, maxLength: 4 }), frameOrder, (rules, order) => {
        const compiled = compileRuleset({ rules: rules.map(([action, e]) => ({ action, expression: e })) });
        expect(compiled.hasErrors, JSON.stringify(compiled.diagnostics)).toBe(false);
        expect(compiled.slotsDecider).toBeDefined();
        const counter = frameCounter(compiled, { geoip: GEO });
        for (const k of order) {
          const f = FRAMES[k]!;
          const packet = decodePacket({ linkType: f.linkType, data: f.data }, { problems: false, geoip: GEO }).packet as Packet;
          const v = compiled.decide(packet);
          expect(counter(f.data, 0, f.data.length, f.linkType, k), rules.join('; ')).toBe(v.decidedBy ? v.decidedBy.index : -1);
        }
      }),
      { numRuns: 80 },
    );
  });
});
