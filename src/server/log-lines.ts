/**
 * What an operator reads of `rulekit serve`'s request log: pino's JSON lines when stdout is piped (or
 * with `--log-format json`), for a log collector; one readable line per request on a terminal
 * (`--log-format pretty`). Lines are held until the banner is out, so that the banner comes first.
 * @module
 */

/** How the log is written. */
export type LogFormat = 'json' | 'pretty';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };

/** Members of pino's lines that the readable line shows in its own words, or leaves out. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime']);

function clock(time: unknown): string {
  const d = new Date(typeof time === 'number' ? time : Date.now());
  return d.toISOString().slice(11, 23);
}

/**
 * The destination of fastify's logger (pino writes one JSON line per `write`). Readable lines: a request
 * is one line when it completes (`12:00:01.250 INFO  200 PUT /client/v4/… 3.1 ms req 768c96c1`), its
 * "incoming request" line only remembered for the method and URL; any other line is its message and the
 * members pino would print besides.
 */
export class LogLines {
  private held: string[] | undefined = [];
  private readonly pending = new Map<string, string>();

  constructor(private readonly format: LogFormat, private readonly out: (text: string) => void) {}

  /** pino's stream interface. */
  write(line: string): void {
    const text = this.format === 'json' ? line : this.pretty(line);
    if (text === undefined) return;
    if (this.held) this.held.push(text);
    else this.out(text);
  }

  /** Write what was held and everything from now on. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const text of held) this.out(text);
  }

  private pretty(line: string): string | undefined {
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return line;
    }
    const level = LEVELS[v['level'] as number] ?? String(v['level']);
    const reqId = typeof v['reqId'] === 'string' ? v['reqId'] : undefined;
    const req = v['req'] as { method?: string; url?: string } | undefined;
    const res = v['res'] as { statusCode?: number } | undefined;
    if (reqId && req && v['msg'] === 'incoming request') {
      this.pending.set(reqId, `${req.method} ${req.url}`);
      // A request that never completes (its client went away mid-body) leaves its entry: keep a bound.
      if (this.pending.size > 10_000) this.pending.delete(this.pending.keys().next().value!);
      return undefined;
    }
    const rest: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!SHOWN.has(k)) rest[k] = x;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    const tag = reqId ? ` req ${reqId.slice(0, 8)}` : '';
    if (reqId && res && typeof v['responseTime'] === 'number') {
      const what = this.pending.get(reqId) ?? '';
      this.pending.delete(reqId);
      return `${clock(v['time'])} ${level} ${res.statusCode} ${what} ${v['responseTime'].toFixed(1)} ms${tag}${extra}\n`;
    }
    return `${clock(v['time'])} ${level} ${String(v['msg'] ?? '')}${tag}${extra}\n`;
  }
}
