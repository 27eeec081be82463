/**
 * The diff tab's computations without a browser: the sample change's regions (each witness decided as
 * its region says by the simulator), the counts over the sample packets, and the drawings' time bins.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/index.js';
import { countDiffPackets, countDiffRequests, countDiffTraffic, runDiff, witnessText } from '../../src/playground/diff-run.js';
import { countDiff } from '../../src/diff/index.js';
import { readTrafficRecords } from '../../src/http/index.js';
import { HTTP_DIFF_NEW, HTTP_DIFF_OLD, LOGPUSH_LINES } from './http-diff-fixture.js';
import { binTimes } from '../../src/playground/charts.js';
import { defaultState } from '../../src/playground/index.js';
import { packetOf, parseLists } from '../../src/playground/run.js';

describe('the diff tab', () => {
  const s = defaultState();

  it('the sample change: RDP blocked, plain SIP unblocked, the office\'s web decided by its rule', () => {
    const out = runDiff(s.diffOld, s.diffNew, s.lists);
    expect(out.error).toBeUndefined();
    expect(out.regions.map((r) => [r.change, r.where, r.old, r.new])).toEqual([
      ['verdict', 'udp.dstport 5060', 'block by rule 4 "no-sip"', 'allow'],
      ['verdict', 'tcp.dstport 3389', 'allow', 'block by rule 1 "no-telnet-smb"'],
      ['rule', 'ip.src 203.0.113.0/26, tcp.dstport 443', 'allow', 'allow by rule 0 "office-ssh"'],
    ]);
    // Each witness really is decided as its region says, on both sides.
    const lists = parseLists(s.lists).lists;
    for (const r of out.diff!.regions) {
      const before = simulate(JSON.parse(s.diffOld), [r.witness!], { lists }).results[0]!;
      const after = simulate(JSON.parse(s.diffNew), [r.witness!], { lists }).results[0]!;
      expect([before.verdict, before.decidedBy?.index, after.verdict, after.decidedBy?.index]).toEqual([r.old.verdict, r.old.rule?.index, r.new.verdict, r.new.rule?.index]);
    }
    expect(out.regions[1]!.witness).toBe(witnessText(out.diff!.regions[1]!.witness));
  });

  it('counts over the sample packets: the SIP packet changes fate, per region and per rule', () => {
    const packets = s.packets.map((row) => packetOf(row).packet);
    const counts = countDiffPackets(s.diffOld, s.diffNew, s.lists, packets, 'samples')!;
    expect([counts.packets, counts.changed, counts.verdictChanged, counts.outside]).toEqual([4, 1, 1, 0]);
    expect(counts.regions.map((r) => [r.region, r.count, r.examples.map((e) => e.index)])).toEqual([[0, 1, [3]]]);
    expect(counts.perRule).toEqual([{ label: 'block by rule 4 "no-sip" → allow', count: 1, verdictChanged: true, example: '#3 {"ip.src":"192.0.2.9","udp.dstport":5060}' }]);
  });

  it('an HTTP-phase change counted over the sample requests: per pair, each with an example showing the fields the rules read', () => {
    const out = runDiff(HTTP_DIFF_OLD, HTTP_DIFF_NEW, s.lists);
    expect(out.diff!.unit).toBe('request');
    const read = readTrafficRecords(s.requests);
    const counts = countDiffRequests(HTTP_DIFF_OLD, HTTP_DIFF_NEW, s.lists, read.records, 'samples', out.diff, read.indexOf)!;
    expect([counts.packets, counts.changed, counts.verdictChanged, counts.outside]).toEqual([3, 2, 2, 0]);
    expect(counts.perRule).toEqual([
      { label: 'block by rule 0 "admin" → managed_challenge by rule 0 "admin"', count: 1, verdictChanged: true, example: 'line 1 {"http.request.method":"GET","http.request.uri.path":"/admin/users"}' },
      { label: 'allow → block by rule 1 "posts"', count: 1, verdictChanged: true, example: 'line 2 {"http.request.method":"POST","http.request.uri.path":"/login"}' },
    ]);
    // The library's counter over the same records says the same.
    const lib = countDiff(JSON.parse(HTTP_DIFF_OLD), JSON.parse(HTTP_DIFF_NEW), read.records.map((r) => r.record));
    expect(lib.pairs.map((p) => p.count)).toEqual(counts.perRule.map((p) => p.count));
  });

  it('a dropped file of Logpush http_requests lines: read as the CLI reads it, its bad lines named and skipped', () => {
    const counts = countDiffTraffic(HTTP_DIFF_OLD, HTTP_DIFF_NEW, s.lists, `${LOGPUSH_LINES}\nnot json\n`, 'logs.ndjson')!;
    expect(counts.over).toBe('logs.ndjson (Logpush http_requests lines)');
    expect([counts.packets, counts.changed]).toEqual([4, 2]);
    expect(counts.perRule.map((p) => [p.label, p.count, p.example])).toEqual([
      ['allow → block by rule 1 "posts"', 2, 'line 2 {"http.request.method":"POST","http.request.uri.path":"/login"}'],
    ]);
    expect(counts.problems).toEqual([expect.stringMatching(/^line 5: not JSON/)]);
    // A HAR document: examples name its entries.
    const har = JSON.stringify({ log: { entries: [{ request: { method: 'POST', url: 'https://example.com/upload', headers: [] } }] } });
    expect(countDiffTraffic(HTTP_DIFF_OLD, HTTP_DIFF_NEW, s.lists, har, 'site.har')!.perRule[0]!.example).toBe('entry 1 {"http.request.method":"POST","http.request.uri.path":"/upload"}');
  });

  it('a side that is not a ruleset is named, and nothing is compared', () => {
    expect(runDiff('{', s.diffNew, s.lists).error).toMatch(/^the old ruleset is not JSON/);
    expect(runDiff(s.diffOld, '{"name": "x"}', s.lists).error).toBe('the new ruleset needs a "rules" array (a ruleset body, as the rules tab edits)');
    expect(runDiff(s.diffOld, s.diffOld, s.lists).regions).toEqual([]);
  });

  it('times fall into equal bins, every point counted once, the last one in the last bin', () => {
    const points = [0, 1, 2, 3, 10].map((t, i) => ({ t, series: i % 2 ? 'block' : 'allow' }));
    const { bins, binMs } = binTimes(points, 5);
    expect(binMs).toBe(2);
    expect(bins.map((b) => b.counts)).toEqual([{ allow: 1, block: 1 }, { allow: 1, block: 1 }, {}, {}, { allow: 1 }]);
    expect(binTimes([]).bins).toEqual([]);
  });
});
