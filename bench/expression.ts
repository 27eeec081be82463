/**
 * Network rule expressions:
 * 1. parse + check of a ~125-character rule (1000 variants of one 4-digit literal), µs each, against
 *    `@marcbachmann/cel-js` parse + check of the same logic and the hand-written recursive-descent parser
 *    in bench/rd-parser.ts (the practical limit). Targets: ≤ 3× the hand-written parser, faster than cel-js.
 * 2. the compiled matcher, ns/packet on 10k synthetic packets, against a hand-written closure of the same
 *    expression and the interpreter. Targets: ≤ 1.2× the closure, ≥ 5× faster than the interpreter.
 * Every engine's match count must equal the closure's, or the bench throws.
 */
import { parse as celParse } from '@marcbachmann/cel-js';
import { measureInterleaved, printTable, fmt, ratio } from './harness.js';
import { prng } from './capture-gen.js';
import { rdParse } from './rd-parser.js';
import { checkExpression, compileExpression, interpret, ListCatalog, IpSet, type Packet } from '../dist/index.js';
import type { Timing } from './harness.js';

const VARIANTS = 1000;
const rule = (n: number) => `tcp.dstport in {22 80 443 8000..${8000 + n}} and not ip.src in $blocklist and (ip.geoip.country == "BR" or ip.proto == "udp")`;
const celRule = (n: number) => `(port in [22, 80, 443] || (port >= 8000 && port <= ${8000 + n})) && !(src in blocklist) && (country == "BR" || proto == "udp")`;


const BLOCKLIST = Array.from({ length: 1000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.0/24`);

/** Synthetic packets: TCP/UDP/ICMP, v4 (a fifth of them in the blocklist), some countries. */
function packets(count: number): Packet[] {
  const rnd = prng(7);
  const out: Packet[] = [];
  const countries = ['BR', 'US', 'DE', 'FR', 'BR', 'JP'];
  const ports = [22, 80, 443, 8080, 8500, 9000, 53, 25];
  for (let i = 0; i < count; i++) {
    const proto = rnd() < 0.6 ? 'tcp' : rnd() < 0.8 ? 'udp' : 'icmp';
    const p: Record<string, unknown> = {
      'ip.proto': proto,
      'ip.src': rnd() < 0.2 ? `10.${Math.floor(rnd() * 4)}.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}` : `192.0.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}`,
      'ip.dst': '198.51.100.1',
      'ip.src.country': countries[Math.floor(rnd() * countries.length)],
      'ip.dst.country': 'US',
    };
    if (proto === 'tcp') p['tcp.dstport'] = ports[Math.floor(rnd() * ports.length)];
    if (proto === 'udp') p['udp.dstport'] = 53;
    out.push(p);
  }
  return out;
}

/**
 * The same closure with the list lookup last: what rulekit's planner does on its own (src/expression/cost.ts
 * orders and/or operands cheapest first), written by hand, so the table also shows the planner against
 * an engineer who thought of it.
 */
function handWrittenReordered(blocklist: IpSet): (p: Packet) => boolean {
  return (p) => {
    const port = p['tcp.dstport'];
    if (!(typeof port === 'number' && (port === 22 || port === 80 || port === 443 || (port >= 8000 && port <= 8999)))) return false;
    const c = p['ip.geoip.country'];
    const br = c !== undefined ? c === 'BR' : p['ip.src.country'] === 'BR' || p['ip.dst.country'] === 'BR';
    if (!(br || p['ip.proto'] === 'udp')) return false;
    const src = p['ip.src'];
    return !(typeof src === 'string' && blocklist.has(src));
  };
}

/** The hand-written closure of rule(999): what a careful engineer would type, in the written order. */
function handWritten(blocklist: IpSet): (p: Packet) => boolean {
  return (p) => {
    const port = p['tcp.dstport'];
    if (!(typeof port === 'number' && (port === 22 || port === 80 || port === 443 || (port >= 8000 && port <= 8999)))) return false;
    const src = p['ip.src'];
    if (typeof src === 'string' && blocklist.has(src)) return false;
    const c = p['ip.geoip.country'];
    const br = c !== undefined ? c === 'BR' : p['ip.src.country'] === 'BR' || p['ip.dst.country'] === 'BR';
    return br || p['ip.proto'] === 'udp';
  };
}

export async function run(): Promise<void> {
  const lists = ListCatalog.from({ blocklist: BLOCKLIST });
  // --- parse + check ---
  const ours = Array.from({ length: VARIANTS }, (_, i) => rule(i));
  const cels = Array.from({ length: VARIANTS }, (_, i) => celRule(i));
  for (const e of ours.slice(0, 3)) if (checkExpression(e, { lists }).diagnostics.some((d) => d.severity === 'error')) throw new Error('bench rule does not check');
  if (!celParse(cels[0]!).check().valid) throw new Error('cel rule does not check');
  let j = 0;
  const [rd, parseOnly, chevrotain, cel, compile] = measureInterleaved(
    [
      () => rdParse(ours[j++ % VARIANTS]!),
      () => checkExpression(ours[j++ % VARIANTS]!, { lists }).ast,
      () => checkExpression(ours[j++ % VARIANTS]!, { lists, parser: 'chevrotain' }).ast,
      () => celParse(cels[j++ % VARIANTS]!).check().valid,
      () => compileExpression(ours[j++ % VARIANTS]!, { lists }).matcher,
    ],
    { rounds: 21, sampleMs: 5, warmupMs: 300 },
  ) as [Timing, Timing, Timing, Timing, Timing];
  printTable(
    `Parse + check of a ${ours[999]!.length}-character rule (µs each: median of 21 interleaved rounds; ratios of lower quartiles; ${VARIANTS} variants)`,
    ['engine', 'µs', 'ratio to hand-written RD', 'ratio to cel-js parse+check'],
    [
      ['hand-written recursive descent → AST (bench/rd-parser.ts, no checking)', rd.median / 1000, '1.00×', ratio(rd.q1, cel.q1)],
      ['rulekit parse + check (checkExpression; well-formed input takes the fast path)', parseOnly.median / 1000, ratio(parseOnly.q1, rd.q1), ratio(parseOnly.q1, cel.q1)],
      ['rulekit parse + check, Chevrotain parser only (parser: chevrotain)', chevrotain.median / 1000, ratio(chevrotain.q1, rd.q1), ratio(chevrotain.q1, cel.q1)],
      ['rulekit parse + check + compile (compileExpression)', compile.median / 1000, ratio(compile.q1, rd.q1), ratio(compile.q1, cel.q1)],
      ['@marcbachmann/cel-js parse() + check()', cel.median / 1000, ratio(cel.q1, rd.q1), '1.00×'],
    ],
    ['targets: rulekit parse + check ≤ 3× the hand-written parser and below cel-js parse + check', 'timing is interleaved (bench/harness.ts measureInterleaved): every round times each engine once in a rotated order'],
  );

  // --- matcher ---
  const pk = packets(10_000);
  const compiled = compileExpression(rule(999), { lists });
  const closures = compileExpression(rule(999), { lists, codegen: false });
  const blockSet = IpSet.fromItems(BLOCKLIST).set;
  const closure = handWritten(blockSet);
  const count = (f: (p: Packet) => boolean) => {
    let n = 0;
    for (let i = 0; i < pk.length; i++) if (f(pk[i]!)) n++;
    return n;
  };
  const want = count(closure);
  const engines: [string, (p: Packet) => boolean][] = [
    ['hand-written closure', closure],
    ['hand-written closure, list lookup last', handWrittenReordered(blockSet)],
    ['rulekit compiled matcher (generated code)', compiled.matcher!],
    ['rulekit closure matcher (CSP fallback)', closures.matcher!],
    ['rulekit interpreter', (p) => interpret(compiled.checked!, p)],
  ];
  for (const [name, f] of engines) {
    const got = count(f);
    if (got !== want) throw new Error(`${name} matched ${got} packets, the closure ${want}`);
  }
  // Each engine gets a loop of its own (a separate function literal), so no call site is shared between
  // engines and none of them pays for the others' polymorphism.
  const loops = engines.map(([, f]) => {
    const loop = new Function('m', 'pk', 'let n = 0; for (let i = 0; i < pk.length; i++) if (m(pk[i])) n++; return n;') as (m: (p: Packet) => boolean, pk: Packet[]) => number;
    return () => loop(f, pk);
  });
  const timings = measureInterleaved(loops, { opsPerCall: pk.length, rounds: 21, sampleMs: 5, warmupMs: 200 });
  const base = timings[0]!;
  const rows: (string | number)[][] = engines.map(([name], i) => {
    const s = timings[i]!;
    return [name, s.median, `${fmt(s.min)}–${fmt(s.max)}`, ratio(s.q1, base.q1), want];
  });
  const interp = timings[4]!.q1;
  const comp = timings[2]!.q1;
  printTable(
    `Compiled matcher on ${pk.length} packets (ns/packet: median of 21 interleaved rounds; ratios of lower quartiles)`,
    ['engine', 'ns/packet', 'min–max', 'ratio to closure', 'matches'],
    rows,
    [
      `interpreter / compiled = ${(interp / comp).toFixed(1)}× (target ≥ 5×); compiled / closure target ≤ 1.2×`,
      'the compiled matcher tests and/or operands cheapest first (src/expression/cost.ts); the interpreter keeps the written order',
    ],
  );
}
