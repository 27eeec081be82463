/**
 * `rulekit simulate RULESET.json (CAPTURE.pcap|CAPTURE.pcapng|PACKETS.ndjson|-)`: streams packets through
 * a ruleset. Captures are decoded field by field, only the fields the rules read; NDJSON lines are packet
 * objects. A progress bar runs on stderr when it is a terminal; the summary table goes to stdout.
 * @module
 */
import { closeSync, openSync, readSync, statSync, createReadStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { SingleBar, Presets } from 'cli-progress';
import { compileRuleset, ListCatalog, renderDiagnostic, type CompiledRuleset, SourceText, validateRuleset, type Diagnostic, type Packet, type PacketVerdict, type Ruleset } from '../index.js';
import { CaptureParser, decodePacket, decodeSlots, readCaptureBatches, Slots, type CaptureRecord, type CaptureSummary, type DecodeOptions } from '../capture/index.js';
import { readBatchesWith } from '../capture/read.js';
import { feedPcap, loadGeoIp, LocalPool, pcapFacts, WorkerPool, type PcapFacts } from './simulate-worker.js';
import { readsGeoFields, withGeoIp } from '../ruleset/simulate.js';
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
  /**
   * Worker threads for a classic pcap file (default: one per core, at most 2, for files of 96 MiB and more,
   * where they pay for their start-up; 0: this thread only). Also the environment variable RULEKIT_THREADS. NDJSON input, standard input, pcapng
   * and `--format ndjson` (per-packet output in order) always run on this thread.
   */
  threads?: number;
  /** Bytes per chunk handed to a worker (default 1 MiB; tests use small ones). */
  chunkBytes?: number;
  /**
   * `auto` (default): captures are decoded into numeric slots when every rule reads only slot fields
   * (src/capture/slots.ts), else into packet objects; `objects`: always packet objects (tests compare).
   */
  decoder?: 'auto' | 'objects';
}

/**
 * Files from this size on go to worker threads by default: below it (~1.5M packets) one thread is done
 * about as soon as the workers have started and warmed up (measured here with bench/simulate.ts's
 * capture: 1M packets, 67 MB, ran 10-15% faster on one thread; 3M packets 1.4× faster on two workers).
 */
const PARALLEL_MIN_BYTES = 96 << 20;
const MAX_PACKET = 262144;

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

/**
 * How a classic pcap file is read: in chunks of whole records cut on this thread, counted on `threads`
 * worker threads, or on this thread when `threads` is 0. Undefined for anything else (standard input,
 * pcapng, NDJSON, per-packet output), which goes through the general reader.
 */
function pcapPlan(inputPath: string, options: SimulateOptions): { facts: PcapFacts; threads: number } | undefined {
  if (inputPath === '-' || options.format === 'ndjson') return undefined;
  const env = process.env['RULEKIT_THREADS'];
  const asked = options.threads ?? (env !== undefined && env !== '' ? Number(env) : undefined);
  let threads = asked !== undefined && Number.isFinite(asked) ? Math.max(0, Math.floor(asked)) : Math.min(2, availableParallelism());
  if (asked === undefined && threads < 2) threads = 0;
  let size: number;
  try {
    size = statSync(inputPath).size;
  } catch {
    return undefined;
  }
  if (asked === undefined && size < PARALLEL_MIN_BYTES) threads = 0;
  const head = new Uint8Array(24);
  const fd = openSync(inputPath, 'r');
  try {
    if (readSync(fd, head, 0, 24, 0) < 24) return undefined;
  } finally {
    closeSync(fd);
  }
  const facts = pcapFacts(head);
  return facts ? { facts, threads } : undefined;
}

/** Run the command. Returns the exit code: 1 only when the input is bad (ruleset errors, unreadable input). */
export async function simulateCommand(rulesetPath: string, inputPath: string, options: SimulateOptions, out: (s: string) => void): Promise<number> {
  const started = performance.now();
  const rulesetText = await readText(rulesetPath);
  const body = parseJsonFile(rulesetText, rulesetPath) as Ruleset;
  const lists = await loadLists(options.lists);
  const examplesPerRule = Number(options.examples ?? 3);
  const colo = options.colo ? { name: options.colo } : undefined;

  // Compile first and start the worker threads (they get the compiled ruleset as data and do not load the
  // expression parser), so that their start-up overlaps checking the ruleset on this thread.
  // One list catalog (10k CIDRs take ~20 ms to index) for compiling and for checking.
  const catalog = lists ? ListCatalog.from(lists, { serviceToken: options.serviceToken }) : undefined;
  const compiled = compileRuleset(body, { lists: catalog, serviceToken: options.serviceToken, examplesPerRule });
  const plan = pcapPlan(inputPath, options);
  const portable = plan && plan.threads > 0 ? compiled.portable() : undefined;
  const pool = plan && portable ? new WorkerPool({ ruleset: portable, geoip: options.geoip, colo, objects: options.decoder === 'objects', ...plan.facts }, plan.threads) : undefined;
  try {
    const expression = { lists: catalog, serviceToken: options.serviceToken };
    const problems = validateRuleset(rulesetText, { operation: Array.isArray(body) ? 'create' : body && 'name' in body ? 'create' : 'update', expression });
    const src = new SourceText(rulesetText);
    const rulesetErrors = problems.filter((d) => d.severity === 'error');
    if (rulesetErrors.length) {
      for (const d of problems) process.stderr.write(renderDiagnostic(src, d.rangeIn === 'value' ? { ...d, range: d.data?.['documentRange'] as Diagnostic['range'] } : d, rulesetPath) + '\n');
      process.stderr.write(`${rulesetPath}: ${rulesetErrors.length} error(s); fix them to simulate\n`);
      return 1;
    }
    return await simulateWith(pool, plan?.facts, compiled, started, problems, options, inputPath, colo, out);
  } finally {
    await pool?.close();
  }
}

async function simulateWith(
  pool: WorkerPool | undefined,
  facts: PcapFacts | undefined,
  compiled: CompiledRuleset,
  started: number,
  problems: Diagnostic[],
  options: SimulateOptions,
  inputPath: string,
  colo: { name: string } | undefined,
  out: (s: string) => void,
): Promise<number> {
  const inputDiagnostics: Diagnostic[] = [];
  const geoip = await loadGeoIp(options.geoip, inputDiagnostics);
  if (readsGeoFields(compiled.fields) && !geoip) {
    inputDiagnostics.push({ code: 'simulation-no-geoip', severity: 'warning', message: 'the ruleset reads country/ASN fields but no --geoip table was given: those fields are missing for every packet' });
  }
  const ndjson = options.format === 'ndjson';
  const emit = (index: number, v: PacketVerdict) => {
    if (ndjson) out(JSON.stringify({ index, verdict: v.verdict, decidedBy: v.decidedBy ?? null, matched: v.matched }) + '\n');
  };

  const size = inputPath === '-' ? 0 : statSync(inputPath).size;
  // A bar with a total for files over 4 MB; for standard input (size unknown) a running count instead.
  const stdin = inputPath === '-';
  const showBar = options.progress !== false && process.stderr.isTTY && (stdin || size > 4 << 20);
  const bar = showBar
    ? new SingleBar({ format: stdin ? 'simulate | {value} MB read | {packets} packets' : 'simulate [{bar}] {percentage}% | {value}/{total} MB | {packets} packets', stream: process.stderr }, Presets.shades_classic)
    : undefined;
  bar?.start(stdin ? 0 : Math.ceil(size / 1048576), 0, { packets: 0 });

  let index = 0;
  // One capture's records through the ruleset on this thread. Without per-packet output the packet
  // object is reused (the bench showed allocation and GC at 14%); count() copies the ones it keeps.
  const decideAll = async (batches: AsyncGenerator<CaptureRecord[], CaptureSummary, undefined>) => {
    const decode: DecodeOptions = { fields: compiled.fields, geoip, colo, problems: false, fixedShape: true, reuse: undefined };
    // Numeric slots when the ruleset allows (no packet object unless the summary keeps an example).
    const slots = compiled.slotsDecider && !ndjson && options.decoder !== 'objects' ? new Slots() : undefined;
    const exampleOptions: DecodeOptions = { fields: compiled.fields, geoip, colo, problems: false };
    let current: CaptureRecord | undefined;
    const example = () => decodePacket({ linkType: current!.linkType, data: current!.data.slice() }, exampleOptions).packet as Packet;
    for (;;) {
      const next = await batches.next();
      if (next.done) {
        inputDiagnostics.push(...next.value.diagnostics);
        break;
      }
      if (slots) {
        for (const rec of next.value) {
          current = rec;
          decodeSlots(slots, rec.data, 0, rec.data.length, rec.linkType);
          compiled.countSlots(slots.V, slots.W, index++, example);
        }
        if (bar && next.value.length > 0) bar.update(Math.floor(next.value[next.value.length - 1]!.offset / 1048576), { packets: index });
        continue;
      }
      for (const rec of next.value) {
        const { packet } = decodePacket(rec, decode);
        if (ndjson) emit(index, compiled.run(packet as Packet, index));
        else {
          decode.reuse = packet;
          compiled.count(packet as Packet, index, true);
        }
        index++;
      }
      if (bar && next.value.length > 0) bar.update(Math.floor(next.value[next.value.length - 1]!.offset / 1048576), { packets: index });
    }
  };
  if (facts) {
    // A classic pcap file: chunks of whole records, counted on the workers or on this thread.
    const here = new LocalPool(compiled, { ...facts, colo, objects: options.decoder === 'objects' }, geoip);
    pool?.countHereUntilReady(here);
    const sink = pool ?? here;
    const fed = await feedPcap(inputPath, facts, sink, {
      chunkBytes: options.chunkBytes ?? 1 << 20,
      maxPacket: MAX_PACKET,
      onProgress: bar ? (bytes, packets) => bar.update(Math.floor(bytes / 1048576), { packets }) : undefined,
    });
    index = fed.packets;
    if (fed.rest) {
      // A corrupt or cut record: the rest of the file on this thread, with whole-file offsets and numbers.
      const parser = new CaptureParser({ timestamps: 'number', maxPacketBytes: MAX_PACKET });
      const header = new Uint8Array(24);
      const fd = openSync(inputPath, 'r');
      try {
        readSync(fd, header, 0, 24, 0);
      } finally {
        closeSync(fd);
      }
      parser.push(header);
      parser.read();
      parser.resumePcapAt(fed.rest.offset, fed.rest.index, fed.rest.lastSeconds);
      await decideAll(readBatchesWith(parser, createReadStream(inputPath, { start: fed.rest.offset, highWaterMark: 1 << 20 })));
    }
    if (pool) for (const s of await pool.finish()) compiled.merge(s);
    index = compiled.summary().packets;
  } else {
    const { first, stream } = await peek(byteStream(inputPath));
    const isCapture = first !== undefined && first.length >= 4 && PCAP_MAGICS.has(new DataView(first.buffer, first.byteOffset, 4).getUint32(0, false));
    if (isCapture) {
      await decideAll(readCaptureBatches(stream, { timestamps: 'number' }));
    } else if (first !== undefined && looksBinary(first)) {
      // Not a capture (no known magic) and not text: one clear error instead of a diagnostic per "line".
      const magic = Array.from(first.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
      inputDiagnostics.push({
        code: 'simulation-unknown-input',
        severity: 'error',
        message: `${inputPath === '-' ? 'standard input' : inputPath} is neither a pcap/pcapng capture (it starts with ${magic}, no capture magic number) nor NDJSON text; give a capture or one packet object per line`,
        data: { offset: 0 },
      });
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
        // --geoip fills the country/ASN fields a packet line lacks, as the capture decoder does.
        const packet = geoip ? withGeoIp(p as Packet, geoip) : (p as Packet);
        if (ndjson) emit(index, compiled.run(packet, index));
        else compiled.count(packet, index);
        index++;
      };
      let bytesRead = 0;
      for await (const chunk of stream) {
        bytesRead += chunk.length;
        bar?.update(Math.floor(bytesRead / 1048576), { packets: index });
        rest += decoder.decode(chunk, { stream: true });
        const lines = rest.split('\n');
        rest = lines.pop()!;
        for (const l of lines) handle(l);
      }
      rest += decoder.decode();
      if (rest) handle(rest);
    }
  }
  if (!stdin) bar?.update(Math.ceil(size / 1048576), { packets: index });
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

/** Binary data, not NDJSON text: a NUL byte or a control character other than TAB/CR/LF in the first 512 bytes. */
function looksBinary(head: Uint8Array): boolean {
  const n = Math.min(head.length, 512);
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13) return true;
  }
  return false;
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
