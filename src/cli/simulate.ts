/**
 * `rulekit simulate RULESET.json (CAPTURE.pcap|CAPTURE.pcapng|PACKETS.ndjson|-)`: streams packets through
 * a ruleset. Captures are decoded field by field, only the fields the rules read; NDJSON lines are packet
 * objects. A progress bar runs on stderr when it is a terminal; the summary table goes to stdout.
 * @module
 */
import { statSync, readFileSync } from 'node:fs';
import { SingleBar, Presets } from 'cli-progress';
import { compileRuleset, renderDiagnostic, SourceText, validateRuleset, type Diagnostic, type Packet, type PacketVerdict, type Ruleset } from '../index.js';
import { decodePacket, geoIpFromCsv, geoIpFromMmdb, readCaptureBatches, type GeoIpLookup } from '../capture/index.js';
import { byteStream, parseJsonFile, readText, UsageError } from './io.js';
import { loadLists } from './commands.js';

/** Options of the simulate command. */
export interface SimulateOptions {
  lists?: string;
  geoip?: string;
  colo?: string;
  serviceToken?: string;
  format?: 'text' | 'json' | 'ndjson';
  examples?: string;
  progress?: boolean;
  /** Print packets/s and peak memory to stderr at the end. */
  stats?: boolean;
}

const PCAP_MAGICS = new Set([0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1, 0x0a0d0d0a]);

/** Peek at the first chunk of a byte stream and hand back a stream that still yields it. */
async function peek(source: AsyncIterable<Uint8Array>): Promise<{ first: Uint8Array | undefined; stream: AsyncIterable<Uint8Array> }> {
  const it = source[Symbol.asyncIterator]();
  const head = await it.next();
  const first = head.done ? undefined : head.value;
  const stream = {
    async *[Symbol.asyncIterator]() {
      if (first) yield first;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield n.value;
      }
    },
  };
  return { first, stream };
}

async function loadGeoIp(path: string | undefined, diagnostics: Diagnostic[]): Promise<GeoIpLookup | undefined> {
  if (!path) return undefined;
  const load = path.endsWith('.mmdb') ? await geoIpFromMmdb(new Uint8Array(readFileSync(path))) : geoIpFromCsv(readFileSync(path, 'utf8'));
  diagnostics.push(...load.diagnostics);
  return load.lookup;
}

/** Run the command. Returns the exit code: 1 only when the input is bad (ruleset errors, unreadable input). */
export async function simulateCommand(rulesetPath: string, inputPath: string, options: SimulateOptions, out: (s: string) => void): Promise<number> {
  const started = performance.now();
  const rulesetText = await readText(rulesetPath);
  const body = parseJsonFile(rulesetText, rulesetPath) as Ruleset;
  const lists = await loadLists(options.lists);
  const expression = { lists, serviceToken: options.serviceToken };
  const problems = validateRuleset(rulesetText, { operation: Array.isArray(body) ? 'create' : body && 'name' in body ? 'create' : 'update', expression });
  const src = new SourceText(rulesetText);
  const rulesetErrors = problems.filter((d) => d.severity === 'error');
  if (rulesetErrors.length) {
    for (const d of problems) process.stderr.write(renderDiagnostic(src, d.rangeIn === 'value' ? { ...d, range: d.data?.['documentRange'] as Diagnostic['range'] } : d, rulesetPath) + '\n');
    process.stderr.write(`${rulesetPath}: ${rulesetErrors.length} error(s); fix them to simulate\n`);
    return 1;
  }
  const compiled = compileRuleset(body, { lists, serviceToken: options.serviceToken, examplesPerRule: Number(options.examples ?? 3) });
  const inputDiagnostics: Diagnostic[] = [];
  const geoip = await loadGeoIp(options.geoip, inputDiagnostics);
  const usesGeo = [...compiled.fields].some((f) => f.endsWith('.country') || f.endsWith('.asnum'));
  if (usesGeo && !geoip) {
    inputDiagnostics.push({ code: 'simulation-no-geoip', severity: 'warning', message: 'the ruleset reads country/ASN fields but no --geoip table was given: those fields are missing for every packet' });
  }
  const colo = options.colo ? { name: options.colo } : undefined;
  const ndjson = options.format === 'ndjson';
  const emit = (index: number, v: PacketVerdict) => {
    if (ndjson) out(JSON.stringify({ index, verdict: v.verdict, decidedBy: v.decidedBy ?? null, matched: v.matched }) + '\n');
  };

  const size = inputPath === '-' ? 0 : statSync(inputPath).size;
  const bar = options.progress !== false && process.stderr.isTTY && size > 4 << 20 ? new SingleBar({ format: 'simulate [{bar}] {percentage}% | {value}/{total} MB | {packets} packets', stream: process.stderr }, Presets.shades_classic) : undefined;
  bar?.start(Math.ceil(size / 1048576), 0, { packets: 0 });

  const { first, stream } = await peek(byteStream(inputPath));
  let index = 0;
  const isCapture = first !== undefined && first.length >= 4 && PCAP_MAGICS.has(new DataView(first.buffer, first.byteOffset, 4).getUint32(0, false));
  if (isCapture) {
    const fields = compiled.fields;
    const batches = readCaptureBatches(stream, { timestamps: 'number' });
    for (;;) {
      const next = await batches.next();
      if (next.done) {
        inputDiagnostics.push(...next.value.diagnostics);
        break;
      }
      for (const rec of next.value) {
        const { packet } = decodePacket(rec, { fields, geoip, colo, problems: false, fixedShape: true });
        if (ndjson) emit(index, compiled.run(packet as Packet, index));
        else compiled.count(packet as Packet, index);
        index++;
      }
      if (bar && rec0(next.value)) bar.update(Math.floor((next.value[next.value.length - 1]!.offset) / 1048576), { packets: index });
    }
  } else {
    // NDJSON: one packet object per line.
    let rest = '';
    let lineNo = 0;
    const decoder = new TextDecoder();
    const handle = (line: string) => {
      lineNo++;
      if (!line.trim()) return;
      let p: unknown;
      try {
        p = JSON.parse(line);
      } catch (e) {
        inputDiagnostics.push({ code: 'simulation-invalid-packet', severity: 'error', message: `line ${lineNo}: not JSON (${(e as Error).message})`, data: { line: lineNo } });
        return;
      }
      if (p === null || typeof p !== 'object' || Array.isArray(p)) {
        inputDiagnostics.push({ code: 'simulation-invalid-packet', severity: 'error', message: `line ${lineNo}: a packet is a JSON object`, data: { line: lineNo } });
        return;
      }
      if (ndjson) emit(index, compiled.run(p as Packet, index));
      else compiled.count(p as Packet, index);
      index++;
    };
    for await (const chunk of stream) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split('\n');
      rest = lines.pop()!;
      for (const l of lines) handle(l);
    }
    rest += decoder.decode();
    if (rest) handle(rest);
  }
  bar?.update(Math.ceil(size / 1048576), { packets: index });
  bar?.stop();

  if (options.stats) {
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`stats: ${index} packets in ${seconds.toFixed(2)} s = ${Math.round(index / seconds)} packets/s; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB\n`);
  }
  const summary = compiled.summary();
  const allDiagnostics = [...problems, ...compiled.diagnostics, ...inputDiagnostics];
  if (options.format === 'json') out(JSON.stringify({ summary, diagnostics: allDiagnostics }, null, 2) + '\n');
  else if (ndjson) out(JSON.stringify({ summary: { packets: summary.packets, verdicts: summary.verdicts, defaultAllowed: summary.defaultAllowed, rules: summary.rules.map(({ examples: _e, ...r }) => r) } }) + '\n');
  else out(renderSummary(summary, allDiagnostics));
  const badInput = index === 0 && inputDiagnostics.some((d) => d.severity === 'error');
  return badInput ? 1 : 0;
}

function rec0(batch: unknown[]): boolean {
  return batch.length > 0;
}

/** The text summary: one row per rule, then the verdict totals and the input's diagnostics. */
export function renderSummary(summary: ReturnType<ReturnType<typeof compileRuleset>['summary']>, diagnostics: Diagnostic[]): string {
  const rows = [['#', 'action', 'rule', 'matched', 'decided', 'examples (frame numbers, 1-based)']];
  for (const r of summary.rules) {
    const name = (r.description ?? r.ref ?? r.expression).slice(0, 48) + (r.enabled ? '' : ' (disabled)');
    rows.push([String(r.index), r.action, name, String(r.matched), String(r.decided), r.examples.map((e) => e.index + 1).join(' ')]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((c, i) => (i >= 3 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd());
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  const pct = (n: number) => (summary.packets ? ` (${((100 * n) / summary.packets).toFixed(1)}%)` : '');
  lines.push('');
  lines.push(`packets ${summary.packets}: allowed ${summary.verdicts.allow}${pct(summary.verdicts.allow)}, blocked ${summary.verdicts.block}${pct(summary.verdicts.block)}, allowed by default ${summary.defaultAllowed}`);
  const shown = diagnostics.filter((d) => d.severity !== 'hint');
  for (const d of shown.slice(0, 20)) {
    const where = d.pointer !== undefined ? ` ${d.pointer}` : d.data && 'offset' in d.data ? ` at byte ${d.data['offset']}` : '';
    lines.push(`${d.severity}[${d.code}]${where}: ${d.message}`);
  }
  if (shown.length > 20) lines.push(`... and ${shown.length - 20} more diagnostics (use --format json)`);
  return lines.join('\n') + '\n';
}

export { UsageError };
