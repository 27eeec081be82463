/**
 * `Slots.sip` off: decodeSlots leaves `sip` missing and every other slot as it is with it on (the frame
 * counter turns it off when no rule reads `sip`: the payload search is the decoder's costliest step).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeSlots, readCaptureAll, SLOT, Slots } from '../../src/capture/index.js';
import { compileRuleset, frameCounter } from '../../src/engine/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'capture');
const files = readdirSync(FIXTURES).filter((f) => /\.pcap(ng)?$/.test(f)).sort();
const records = (await Promise.all(files.map(async (f) => (await readCaptureAll(new Uint8Array(readFileSync(join(FIXTURES, f))))).records))).flat();
const S_SIP = SLOT['sip']!;

describe('Slots.sip', () => {
  it('off: sip missing, every other slot the same; the fixtures hold SIP packets', () => {
    const on = new Slots();
    const off = new Slots();
    off.sip = false;
    let sip = 0;
    for (const r of records) {
      decodeSlots(on, r.data, 0, r.data.length, r.linkType);
      decodeSlots(off, r.data, 0, r.data.length, r.linkType);
      if (on.V[S_SIP] === 1) sip++;
      expect(Number.isNaN(off.V[S_SIP]!) || off.V[S_SIP] === 0).toBe(true);
      const a = Array.from(on.V);
      const b = Array.from(off.V);
      a[S_SIP] = b[S_SIP] = -1;
      expect(b).toEqual(a);
      expect(Array.from(off.W)).toEqual(Array.from(on.W));
    }
    expect(records.length).toBeGreaterThan(50);
    expect(sip).toBeGreaterThan(0);
  });

  it('the frame counter decodes sip for a ruleset that reads it, and the verdicts follow it', () => {
    const count = (expression: string) => {
      const compiled = compileRuleset({ rules: [{ action: 'block', expression }] });
      expect([...compiled.fields], expression).toContain(expression.includes('sip') ? 'sip' : 'ip.len');
      const counter = frameCounter(compiled);
      return records.filter((r, i) => counter(r.data, 0, r.data.length, r.linkType, i) === 0).length;
    };
    const sip = count('sip');
    expect(sip).toBeGreaterThan(0);
    expect(count('sip and ip.len > 0')).toBe(sip);
    expect(count('not sip and ip.len > 0')).toBe(count('ip.len > 0') - sip);
  });
});
