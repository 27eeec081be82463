/**
 * HTTP-phase expressions beside network ones, in one run: parse + check (µs each) of the network rule of
 * bench/expression.ts (the baseline), of an HTTP rule on plain fields and of an HTTP rule using functions,
 * `[ ]` / `[*]` indexing and any() (each over 1000 variants of a 4-digit literal, so no cache answers);
 * then evaluation (ns per record) of each compiled matcher and of the interpreter on records that match
 * and records that do not.
 */
import { measureInterleaved, printTable, ratio, type Timing } from './harness.js';
import { checkExpression, compileExpression, interpret, HTTP_SCHEME, ListCatalog } from '../dist/index.js';

const VARIANTS = 1000;
const network = (n: number) => `tcp.dstport in {22 80 443 8000..${8000 + n}} and not ip.src in $blocklist and (ip.geoip.country == "BR" or ip.proto == "udp")`;
const http = (n: number) => `(http.request.uri.path contains "/wp-login.php" and ip.src.country ne "US") or (cf.threat_score gt ${n} and not cf.client.bot)`;
const functions = (n: number) =>
  `any(lower(http.request.headers.names[*])[*] == "x-${n}") or (starts_with(http.request.uri.path, "/api/") and http.request.headers["content-type"][0] ne "application/json" and len(http.request.uri.query) > ${n})`;

const PACKETS = [
  { 'tcp.dstport': 443, 'ip.src': '192.0.2.1', 'ip.src.country': 'BR', 'ip.proto': 'tcp' },
  { 'tcp.dstport': 25, 'ip.src': '10.0.0.1', 'ip.proto': 'udp' },
];
const headers = (names: string[]) => new Map(names.map((n) => [n, [n === 'content-type' ? 'text/plain' : 'v']]));
const RECORDS = [
  { 'http.request.uri.path': '/api/v1/items', 'http.request.uri.query': 'a=1&b=2'.repeat(400), 'http.request.headers.names': ['Host', 'Accept', 'Content-Type', 'X-Forwarded-For'], 'http.request.headers': headers(['host', 'accept', 'content-type', 'x-forwarded-for']), 'cf.threat_score': 5, 'cf.client.bot': false, 'ip.src.country': 'US' },
  { 'http.request.uri.path': '/index.html', 'http.request.uri.query': '', 'http.request.headers.names': ['Host', 'Accept'], 'http.request.headers': headers(['host', 'accept']), 'cf.threat_score': 1, 'cf.client.bot': true, 'ip.src.country': 'FR' },
];

export async function run(): Promise<void> {
  const lists = ListCatalog.from({ blocklist: ['10.0.0.0/8'] });
  const texts = [network, http, functions].map((f) => Array.from({ length: VARIANTS }, (_, i) => f(1000 + i)));
  for (const t of texts.slice(1)) if (checkExpression(t[0]!, { scheme: HTTP_SCHEME }).diagnostics.some((d) => d.severity === 'error')) throw new Error(`bench expression has errors: ${t[0]}`);
  let j = 0;
  const [net, h, fn] = measureInterleaved(
    [
      () => checkExpression(texts[0]![j++ % VARIANTS]!, { lists }).ast,
      () => checkExpression(texts[1]![j++ % VARIANTS]!, { scheme: HTTP_SCHEME }).ast,
      () => checkExpression(texts[2]![j++ % VARIANTS]!, { scheme: HTTP_SCHEME }).ast,
    ],
    { rounds: 21, sampleMs: 5, warmupMs: 300 },
  ) as [Timing, Timing, Timing];
  printTable(
    'Parse + check (µs each: median of 21 interleaved rounds; ratios of lower quartiles)',
    ['expression', 'characters', 'µs', 'ratio to the network rule'],
    [
      ['network rule (network scheme)', texts[0]![999]!.length, net.median / 1000, '1.00×'],
      ['HTTP rule on plain fields', texts[1]![999]!.length, h.median / 1000, ratio(h.q1, net.q1)],
      ['HTTP rule with functions, [ ] / [*], any()', texts[2]![999]!.length, fn.median / 1000, ratio(fn.q1, net.q1)],
    ],
  );
  const netC = compileExpression(texts[0]![0]!, { lists });
  const fnC = compileExpression(texts[2]![0]!, { scheme: HTTP_SCHEME });
  const netM = netC.matcher!;
  const fnM = fnC.matcher!;
  if (fnM(RECORDS[0]!) !== true || fnM(RECORDS[1]!) !== false) throw new Error('bench records do not give the expected verdicts');
  let k = 0;
  let sink = 0;
  const [nm, fm, ni, fi] = measureInterleaved(
    [
      () => (sink += netM(PACKETS[k++ & 1]!) ? 1 : 0),
      () => (sink += fnM(RECORDS[k++ & 1]!) ? 1 : 0),
      () => (sink += interpret(netC.checked!, PACKETS[k++ & 1]!) ? 1 : 0),
      () => (sink += interpret(fnC.checked!, RECORDS[k++ & 1]!) ? 1 : 0),
    ],
    { rounds: 21, sampleMs: 5, warmupMs: 300 },
  ) as [Timing, Timing, Timing, Timing];
  printTable(
    `Evaluate (ns per record, one matching and one not, alternately; sink ${sink > 0 ? 'used' : 'empty'})`,
    ['evaluator', 'expression', 'ns', 'ratio to the network matcher'],
    [
      ['compiled matcher', 'network rule', nm.median, '1.00×'],
      ['compiled matcher', 'HTTP rule with functions', fm.median, ratio(fm.q1, nm.q1)],
      ['interpreter', 'network rule', ni.median, ratio(ni.q1, nm.q1)],
      ['interpreter', 'HTTP rule with functions', fi.median, ratio(fi.q1, nm.q1)],
    ],
  );
}
