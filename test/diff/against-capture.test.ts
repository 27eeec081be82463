/**
 * `rulekit diff --against CAPTURE` decodes each frame into one refilled object, the fields the rules of
 * both sides read only (src/simulation/traffic-file.ts `fields`), and the whole frame for an example kept:
 * its counts and examples must be those of deciding each frame decoded whole.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSyntheticPcap } from '../../bench/capture-gen.js';
import { DiffCounter } from '../../src/diff/index.js';
import { readTrafficFile } from '../../src/simulation/traffic-file.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekit-against-capture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function counts(old: { rules: unknown[] }, neu: { rules: unknown[] }, capture: string, decodeFields: boolean) {
  const counter = new DiffCounter(old, neu, { examples: 2 });
  const fields = decodeFields ? { fields: new Set(counter.readFields) } : {};
  await readTrafficFile(capture, 'packet', (record, index, whole) => counter.add(record, index, whole), undefined, fields);
  return counter.result();
}

describe('diff counts over a capture', () => {
  it('are the same with the frames decoded into one object of the fields the rules read', async () => {
    const capture = join(dir, 'synthetic.pcap');
    writeSyntheticPcap(capture, 5_000);
    const old = { rules: [
      { action: 'block', expression: 'tcp.dstport in {22 3389} and ip.src in {10.0.0.0/8}' },
      { action: 'skip', action_parameters: { ruleset: 'current' }, expression: 'udp.dstport == 53' },
      { action: 'block', expression: 'ip.proto == "udp" and udp.dstport > 1024' },
    ] };
    const neu = { rules: [
      { action: 'block', expression: 'tcp.dstport in {22 3389 443} and ip.src in {10.0.0.0/8}' },
      { action: 'block', expression: 'tcp.flags.syn and not tcp.flags.ack and ip.dst != 10.0.0.1' },
      { action: 'block', expression: 'ip.proto == "udp" and udp.dstport > 1024' },
    ] };
    const whole = await counts(old, neu, capture, false);
    const refilled = await counts(old, neu, capture, true);
    expect(whole.changed).toBeGreaterThan(0);
    expect(refilled).toEqual(whole);
    // An example keeps the whole frame, fields the rules do not read included.
    const example = refilled.pairs[0]!.examples[0]!;
    expect(Object.keys(example.record).length).toBeGreaterThan(Object.keys(example.fields).length);
  });

  it('are the same for the example capture and rulesets', async () => {
    const read = (f: string) => JSON.parse(readFileSync(join('examples', f), 'utf8')) as { rules: unknown[] };
    const capture = join('examples', 'capture.pcap');
    const [old, neu] = [read('ruleset.before.json'), read('ruleset.json')];
    expect(await counts(old, neu, capture, true)).toEqual(await counts(old, neu, capture, false));
  });
});
