/**
 * Deciding packets in memory, decoding included: the 50-rule bench ruleset (bench/ruleset-fixture.ts)
 * over the 200k records of a generated capture, each engine starting from the frame's bytes.
 * - baseline: the hand-written decoder + decider on numbers (bench/hand-decider.ts);
 * - rulekit's numeric path (what `rulekit simulate` runs): `decodeSlots` + the compiled slots decider;
 * - rulekit's object path (for rulesets reading fields the slots do not hold): `decodePacket` + `decide`.
 * The deciding rule of every packet must be the same for all three, or the bench throws.
 * Target: rulekit's numeric path ≤ 1.3× the time of the hand-written baseline.
 */
import { readFileSync } from 'node:fs';
import { measureInterleaved, printTable, fmt, type Timing } from './harness.js';
import { cachedCapture } from './capture-cache.js';
import { handDecider } from './hand-decider.js';
import { blocklist, ruleSpecs, rulesetBody } from './ruleset-fixture.js';
import { compileRuleset, type Packet } from '../dist/index.js';
import { readCaptureAll, decodePacket, decodeSlots, Slots } from '../dist/capture/index.js';

const PACKETS = 200_000;

export async function run(): Promise<void> {
  const specs = ruleSpecs();
  const list = blocklist();
  const compiled = compileRuleset(rulesetBody(specs), { lists: { blocklist: list } });
  if (compiled.hasErrors) throw new Error(JSON.stringify(compiled.diagnostics));
  const decideSlots = compiled.slotsDecider;
  if (!decideSlots) throw new Error('the bench ruleset should have a slots decider');
  const { records } = await readCaptureAll(new Uint8Array(readFileSync(cachedCapture(PACKETS))), { copyData: false, timestamps: 'number' });
  if (records.some((r) => r.linkType !== 1)) throw new Error('the hand-written decider reads Ethernet frames only');
  const byHand = handDecider(specs, list);
  const slots = new Slots();
  const fields = compiled.fields;

  const viaHand = (r: (typeof records)[number]) => byHand(r.data);
  const viaSlots = (r: (typeof records)[number]) => {
    decodeSlots(slots, r.data, 0, r.data.length, r.linkType);
    return decideSlots(slots.V, slots.W);
  };
  const viaObjects = (r: (typeof records)[number]) => compiled.decide(decodePacket(r, { fields }).packet as Packet).decidedBy?.index ?? -1;

  // Same deciding rule for every packet.
  let decided = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const [h, s, o] = [viaHand(r), viaSlots(r), viaObjects(r)];
    if (h !== s || h !== o) throw new Error(`packet ${i}: hand-written decider says rule ${h}, slots ${s}, objects ${o}`);
    if (h >= 0) decided++;
  }

  // One loop function per engine, so each call site stays monomorphic.
  const loop = (decide: (r: (typeof records)[number]) => number) => () => {
    let n = 0;
    for (let i = 0; i < records.length; i++) if (decide(records[i]!) >= 0) n++;
    return n;
  };
  const [hand, numeric, objects] = measureInterleaved([loop(viaHand), loop(viaSlots), loop(viaObjects)], {
    opsPerCall: records.length,
    rounds: 21,
    sampleMs: 20,
    warmupMs: 300,
  }) as [Timing, Timing, Timing];

  const row = (what: string, t: Timing) => [what, fmt(t.median), fmt(1e9 / t.median), `${(t.q1 / hand.q1).toFixed(2)}×`];
  printTable(
    `Deciding ${records.length} packets from their bytes: ${specs.length} rules (sets, a 10k-CIDR list)`,
    ['engine', 'ns/packet (median)', 'packets/s', '× hand-written'],
    [
      row('hand-written decoder + decider on numbers (baseline)', hand),
      row('rulekit decodeSlots + slots decider (the path rulekit simulate takes)', numeric),
      row('rulekit decodePacket + decide (packet objects)', objects),
    ],
    [
      `every engine names the same deciding rule for every packet (${decided} of ${records.length} decided)`,
      'target: rulekit decodeSlots + slots decider ≤ 1.3× the hand-written baseline',
      'timing: interleaved (21 rounds, every engine once per round in a rotated order, all the packets per call); × = ratio of lower quartiles',
    ],
  );
}
