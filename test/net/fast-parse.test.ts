/**
 * The hand-written scanners on an enumeration of the texts at their edges, against node:net's `isIP`
 * (which address is text) and ipaddr.js (which value it has): every group count with and without `::` at
 * every position, groups of 1..5 digits, dotted-quad tails, the characters on either side of each
 * character class (`/` and `:` around the digits, `@`/`G` and `` ` ``/`g` around the hex letters), and
 * IPv4 octets at their limits. Values of IPv6 text come from the WHATWG URL host parser. Deterministic, so it keeps its power when property runs are cut down.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isIpAddressText, parseIpv4Number, parseIpv6Words, v6Words } from '../../src/net/fast-parse.js';

function ipv6Texts(): string[] {
  const out = new Set<string>();
  const groups = ['1', 'ab', 'F00', 'ffff', '0'];
  for (let n = 0; n <= 9; n++) {
    const gs = Array.from({ length: n }, (_, i) => groups[i % groups.length]!);
    out.add(gs.join(':'));
    for (let at = 0; at <= n; at++) out.add(`${gs.slice(0, at).join(':')}::${gs.slice(at).join(':')}`);
    // A dotted-quad tail after n groups, with and without `::`.
    out.add(`${gs.join(':')}:1.2.3.4`);
    out.add(`${gs.join(':')}::1.2.3.4`);
    if (n > 0) out.add(`::${gs.join(':')}:255.255.255.255`);
  }
  for (const g of ['', '0', '00', '000', '0000', '00000', 'fffff', '12345']) {
    out.add(`${g}::`);
    out.add(`::${g}`);
    out.add(`1:2:3:4:5:6:7:${g}`);
    out.add(`${g}:2:3:4:5:6:7:8`);
  }
  for (const c of ['/', ':', '@', 'G', '`', 'g', '.', ' ', '%', 'A', 'F', 'a', 'f', '0', '9', '\u0660', '\uff10']) {
    out.add(`${c}::`);
    out.add(`::${c}`);
    out.add(`1${c}::`);
    out.add(`::1${c}`);
    out.add(`1:2:3:4:5:6:7:8${c}`);
    out.add(`1:2:3:4:5:6:7:${c}8`);
    out.add(`1:2:3:4:5:6:1.2.3${c}4`);
    out.add(`::1.2.3.4${c}`);
  }
  for (const tail of ['1.2.3.4', '01.2.3.4', '1.2.3.256', '1.2.3', '1.2.3.4.5', '1.2.3.', '.1.2.3', '255.255.255.255', '12.34.56', '10.20.30.']) {
    out.add(`::ffff:${tail}`);
    out.add(`1:2:3:4:5:6:${tail}`);
    out.add(`1:2:3:4:5:6:7:${tail}`);
    out.add(`1:2:3:4:5:${tail}`);
    out.add(`::${tail}`);
    out.add(`${tail}::`);
    out.add(`1::${tail}:1`);
  }
  for (const s of [':', '::', ':::', '::::', '1:', ':1', '1::2::3', '1:::2', '::1:', ':1::', '1::2:', 'ffff::ffff::', '0:0:0:0:0:0:0:0:', ':0:0:0:0:0:0:0:0']) out.add(s);
  return [...out];
}

function ipv4Texts(): string[] {
  const out = new Set<string>();
  const octets = ['0', '1', '9', '10', '99', '100', '199', '200', '249', '250', '255', '256', '260', '300', '999', '1000', '00', '01', '010', '001', ''];
  for (const o of octets) {
    out.add(`${o}.1.2.3`);
    out.add(`1.2.3.${o}`);
    out.add(`1.${o}.2.3`);
  }
  for (const c of ['/', ':', '.', ' ', 'a', '\u0660']) {
    out.add(`1.2.3.4${c}`);
    out.add(`${c}1.2.3.4`);
    out.add(`1.2${c}3.4`);
  }
  for (const s of ['1.2.3', '1.2.3.4.5', '1..2.3', '1.2.3.', '.1.2.3', '255.255.255.255', '0.0.0.0', '1.1.1.1', '999.999.999.999', '1.2.3.4.', '1.2.3.4..']) out.add(s);
  // Long enough to pass the length test (7..15) yet three octets, or a final dot: only the end-of-text
  // check refuses them.
  for (const s of ['12.34.56', '255.255.255', '100.200.250', '10.20.30.', '255.255.255.', '1.2.3.4.5.6']) out.add(s);
  return [...out];
}

/** The value of IPv6 text as the WHATWG URL host parser reads it (ipaddr.js alone reads `::1.2.3.4` as `::ffff:1.2.3.4`). */
const wordsOf = (text: string) => {
  const b = ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1)).toByteArray();
  return [0, 4, 8, 12].map((i) => ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0);
};

describe('fast-parse scanners at their edges', () => {
  it("parseIpv6Words accepts what isIP calls IPv6, with the URL parser's value", () => {
    const texts = ipv6Texts();
    let accepted = 0;
    for (const t of texts) {
      const ok = parseIpv6Words(t, 0, t.length);
      // node:net reads `::1.2.3.4`-style tails as RFC 4291 does; leading-zero quads it refuses, as we do.
      expect(ok, JSON.stringify(t)).toBe(isIP(t) === 6);
      expect(isIpAddressText(t), JSON.stringify(t)).toBe(isIP(t) !== 0);
      if (ok) {
        accepted++;
        expect([...v6Words], t).toEqual(wordsOf(t));
      }
    }
    expect(accepted).toBeGreaterThan(40);
    expect(texts.length - accepted).toBeGreaterThan(100);
  });

  it('parseIpv4Number accepts what isIP calls IPv4, with its value', () => {
    const texts = ipv4Texts();
    let accepted = 0;
    for (const t of texts) {
      const x = parseIpv4Number(t, 0, t.length);
      expect(x >= 0, JSON.stringify(t)).toBe(isIP(t) === 4);
      if (x >= 0) {
        accepted++;
        expect(x, t).toBe(ipaddr.IPv4.parse(t).toByteArray().reduce((a, b) => a * 256 + b, 0));
      }
    }
    expect(accepted).toBeGreaterThan(20);
    expect(texts.length - accepted).toBeGreaterThan(20);
  });

  it('reads a slice exactly, not the characters around it', () => {
    for (const t of [...ipv6Texts(), ...ipv4Texts()]) {
      for (const [pre, post] of [['1', '1'], [':', ':'], ['.', '.'], ['::', '::'], ['a', 'f']]) {
        const whole = `${pre}${t}${post}`;
        const v6 = parseIpv6Words(whole, pre.length, pre.length + t.length);
        const w = [...v6Words];
        expect(v6, JSON.stringify([pre, t, post])).toBe(isIP(t) === 6);
        if (v6) expect(w).toEqual(wordsOf(t));
        expect(parseIpv4Number(whole, pre.length, pre.length + t.length) >= 0, JSON.stringify([pre, t, post])).toBe(isIP(t) === 4);
      }
    }
  });
});
