/**
 * HTTP-phase expressions beside network ones: parse + check (µs each) of an HTTP rule with the HTTP
 * scheme, of an HTTP rule using functions and indexing (the unsupported-construct scan: one pass over the
 * text and a look-up of each field name), and of the network rule of bench/expression.ts as the baseline,
 * interleaved in one run. Each takes 1000 variants of a 4-digit literal, so no cache answers.
 */
import { measureInterleaved, printTable, ratio, type Timing } from './harness.js';
import { checkExpression, HTTP_SCHEME, ListCatalog } from '../dist/index.js';

const VARIANTS = 1000;
const network = (n: number) => `tcp.dstport in {22 80 443 8000..${8000 + n}} and not ip.src in $blocklist and (ip.geoip.country == "BR" or ip.proto == "udp")`;
const http = (n: number) => `(http.request.uri.path contains "/wp-login.php" and ip.src.country ne "US") or (cf.threat_score gt ${n} and not cf.client.bot)`;
const construct = (n: number) => `any(lower(http.request.headers.names[*])[*] == "x-${n}") and http.request.uri.path wildcard "/api/*"`;

export async function run(): Promise<void> {
  const lists = ListCatalog.from({ blocklist: ['10.0.0.0/8'] });
  const texts = [network, http, construct].map((f) => Array.from({ length: VARIANTS }, (_, i) => f(1000 + i)));
  for (const t of texts.slice(1)) if (checkExpression(t[0]!, { scheme: HTTP_SCHEME }).diagnostics.some((d) => d.severity === 'error')) throw new Error(`bench expression has errors: ${t[0]}`);
  let j = 0;
  const [net, h, c] = measureInterleaved(
    [
      () => checkExpression(texts[0]![j++ % VARIANTS]!, { lists }).ast,
      () => checkExpression(texts[1]![j++ % VARIANTS]!, { scheme: HTTP_SCHEME }).ast,
      () => checkExpression(texts[2]![j++ % VARIANTS]!, { scheme: HTTP_SCHEME }).diagnostics,
    ],
    { rounds: 21, sampleMs: 5, warmupMs: 300 },
  ) as [Timing, Timing, Timing];
  printTable(
    'Parse + check (µs each: median of 21 interleaved rounds; ratios of lower quartiles)',
    ['expression', 'characters', 'µs', 'ratio to the network rule'],
    [
      ['network rule (network scheme)', texts[0]![999]!.length, net.median / 1000, '1.00×'],
      ['HTTP rule (HTTP scheme)', texts[1]![999]!.length, h.median / 1000, ratio(h.q1, net.q1)],
      ['HTTP rule with any()/lower()/[*] (scan only)', texts[2]![999]!.length, c.median / 1000, ratio(c.q1, net.q1)],
    ],
  );
}
