import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePacket, readCaptureAll } from '../../src/capture/index.js';

describe('decodePacket fixedShape', () => {
  it('gives the same defined fields as a plain decode, with one shape for every packet', async () => {
    const { records } = await readCaptureAll(new Uint8Array(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'capture', 'mixed-le-usec.pcap'))));
    const fields = new Set(['ip.src', 'tcp.dstport', 'udp.dstport', 'tcp.flags.syn', 'ip.proto']);
    const keys = new Set<string>();
    for (const r of records) {
      const plain = decodePacket(r, { fields }).packet as Record<string, unknown>;
      const shaped = decodePacket(r, { fields, fixedShape: true }).packet as Record<string, unknown>;
      const defined = Object.fromEntries(Object.entries(shaped).filter(([, v]) => v !== undefined));
      expect(defined).toEqual(plain);
      keys.add(Object.keys(shaped).join(','));
    }
    expect(keys.size).toBe(1);
  });
});
