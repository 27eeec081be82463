/**
 * Streaming keeps memory constant in the file's size: 200k generated packets (~60 MB) pass through the
 * reader and decoder while the retained heap and array-buffer memory stay within a generous bound that a
 * reader holding the file (or its records) would break several times over.
 */
import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decodePacket, readCapture } from '../../src/capture/index.js';
import { syntheticPcapChunks } from '../../bench/capture-gen.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function retained(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

describe('memory', () => {
  it('stays bounded while streaming 200k packets', async () => {
    const COUNT = 200_000;
    const BOUND = 24 * 1024 * 1024;
    let bytes = 0;
    const source = (function* () {
      for (const c of syntheticPcapChunks(COUNT, { payloadBytes: 200, seed: 7 })) {
        bytes += c.length;
        yield c;
      }
    })();
    let n = 0;
    let tcp = 0;
    let baseline = 0;
    let peak = 0;
    const it = readCapture(source);
    for (;;) {
      const next = await it.next();
      if (next.done) {
        expect(next.value.diagnostics).toEqual([]);
        break;
      }
      if (decodePacket(next.value).packet['ip.proto'] === 'tcp') tcp++;
      n++;
      if (n === 20_000) baseline = retained();
      else if (n % 45_000 === 0) peak = Math.max(peak, retained() - baseline);
    }
    peak = Math.max(peak, retained() - baseline);
    expect(n).toBe(COUNT);
    expect(tcp).toBeGreaterThan(COUNT / 2);
    // The stream is far larger than the bound, so holding on to it would fail the test.
    expect(bytes).toBeGreaterThan(2 * BOUND);
    expect(peak).toBeLessThan(BOUND);
  });
});
