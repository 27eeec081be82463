/**
 * One simulation from start to end: the ruleset validated and compiled, the input recognised by its
 * first bytes (pcap, pcapng, NDJSON packet objects or Parquet rows; an HTTP phase's requests as a HAR
 * file, NDJSON request objects, Logpush lines or Parquet rows; gzip-compressed or not), its packets counted through the ruleset by the
 * fastest loop that fits, and a report. A pcap or pcapng capture is cut into chunks of whole records
 * counted on worker threads or on this thread; the rest of a damaged capture (from the first record the
 * chunk walk does not vouch for) and per-packet results go through the general reader; all of them
 * count frames through the compiled ruleset's one frame counter.
 * @module
 */
import { availableParallelism } from 'node:os';
import { CaptureParser, captureFormatOf, captureDiagnostic, decodePacket, LINK_LAYERS, pcapHeaderOf, readBatchesWith, type CaptureRecord, type CaptureSummary, type GeoIpLookup } from '../capture/index.js';
import { hasErrors, type Diagnostic } from '../diagnostics/index.js';
import { ListCatalog, type ListItems, type Packet } from '../expression/index.js';
import { executeNotSimulated, httpDiagnostic, isHar, isLogpushLine, logpushRecord, LogpushMissing, readRequests, requestRecord, type HttpRequest } from '../http/index.js';
import { isHttpRuleset, rulesetDiagnostic, rulesetProblems, type Ruleset } from '../ruleset/index.js';
import { compileRuleset, readsGeoFields, ValueProblems, withGeoIp, type CompiledRuleset, type FrameCounter, type PacketVerdict, type SimulationSummary } from '../engine/index.js';
import { openSource, prepend, type ByteReader, type SimulationSource } from './source.js';
import { chunkLoop, feedPcapChunks, feedPcapngChunks, pcapCountingWalk, pcapFacts, type ChunkedResult, type ChunkFacts, type PcapngFacts } from './pcap-chunks.js';
import { LocalPool, WorkerPool } from './workers.js';
import { loadGeoIpFile } from './geoip-file.js';
import { gunzipInput, isGzip, type GzipInput } from './gzip-source.js';
import { parquetRowBatches } from './parquet-rows.js';

/** Options of a simulation. */
export interface SimulateInputOptions {
  /** Lists by name (`{'svc.anonymizer': [...]}`) or a prebuilt catalog. */
  lists?: ListItems | ListCatalog;
  /** Service token of the managed lists (default `svc`). */
  serviceToken?: string;
  /** Country/ASN table: a file path (CSV or .mmdb; worker threads load it too) or a loaded table. */
  geoip?: string | GeoIpLookup;
  /** The data center that saw the packets (`cf.colo.name`). */
  colo?: { name: string };
  /** Example packets kept per rule (default 3). */
  examplesPerRule?: number;
  /** Worker threads for a pcap or pcapng capture; default {@link defaultThreads} of its size; 0: this thread only. */
  threads?: number;
  /** Bytes per chunk of capture records (default 1 MiB; tests use small ones). */
  chunkBytes?: number;
  /** `auto` (default): numeric slots when the ruleset allows; `objects`: packet objects always (tests compare). */
  decoder?: 'auto' | 'objects';
  /** Called as input is read (about once per MiB). */
  progress?: (p: SimulationProgress) => void;
  /** Stops the simulation: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** A name for the input in messages (default: the path, or "the input"). */
  inputName?: string;
}

/** How far a simulation has read. */
export interface SimulationProgress {
  bytes: number;
  /** The input's size, when known. */
  totalBytes: number | undefined;
  packets: number;
}

/** The outcome of a simulation. */
export interface SimulationReport {
  /** False when the ruleset had errors (then nothing was simulated) or the input was unusable. */
  ok: boolean;
  summary: SimulationSummary;
  /** The ruleset's diagnostics (JSON pointers; ranges in the ruleset text when it was given as text), then the input's. */
  diagnostics: Diagnostic[];
  /**
   * What the input was recognised as: a capture or NDJSON packet objects for a network-phase ruleset;
   * a HAR file, NDJSON request objects (`ndjson`) or Logpush http_requests lines (`logpush`) for an
   * HTTP-phase ruleset; Parquet rows (`parquet`: flows, or request objects or Logpush lines) for both,
   * their examples numbered by row. A gzip-compressed input is named by what it holds.
   */
  input: 'pcap' | 'pcapng' | 'ndjson' | 'har' | 'logpush' | 'parquet' | 'unknown' | 'none';
  /** How frames were decided: on numeric slots, or on packet objects. */
  decoder: 'slots' | 'objects';
  /** Worker threads used (0: this thread only). */
  threads: number;
  /** Bytes read (of a gzip-compressed input, the compressed bytes). */
  bytes: number;
}

/** One packet's result, when per-packet results are asked for. */
export interface PacketResult extends PacketVerdict {
  index: number;
}

/**
 * Files from this size on go to worker threads by default. Measured here (2 cores, bench/simulate.ts's
 * capture): at 1M packets (67 MB) one thread was 10–15% faster, as the workers' start-up and warm-up
 * eat their gain; at 3M packets two workers were 1.4× faster.
 */
export const PARALLEL_MIN_BYTES = 96 << 20;

/** Worker threads for an input of `size` bytes: none below {@link PARALLEL_MIN_BYTES} or on one core, else up to 2. */
export function defaultThreads(size: number | undefined, cores = availableParallelism()): number {
  if (size === undefined || size < PARALLEL_MIN_BYTES || cores < 2) return 0;
  return Math.min(2, cores);
}

/** The general capture reader's limit on one record (larger ones are corrupt). */
const MAX_PACKET = 262144;
const HEAD_BYTES = 512;

const EMPTY_SUMMARY: SimulationSummary = { packets: 0, verdicts: { allow: 0, block: 0 }, defaultAllowed: 0, rules: [] };

/**
 * Simulate and yield each packet's result when `results` is true (in order, on this thread); the
 * generator's return value is the report.
 */
export async function* simulation(
  ruleset: string | Ruleset,
  source: SimulationSource,
  options: SimulateInputOptions = {},
  results = false,
): AsyncGenerator<PacketResult, SimulationReport, undefined> {
  const base = { input: 'none' as SimulationReport['input'], decoder: 'objects' as SimulationReport['decoder'], threads: 0, bytes: 0 };
  const prepared = prepareRuleset(ruleset, options);
  if ('problems' in prepared) return { ok: false, summary: EMPTY_SUMMARY, diagnostics: prepared.problems, ...base };
  const { body, compiled, http, ruleDiagnostics } = prepared;

  const inputDiagnostics: Diagnostic[] = [];
  let geoip: GeoIpLookup | undefined;
  if (typeof options.geoip === 'string') {
    const load = await loadGeoIpFile(options.geoip);
    inputDiagnostics.push(...load.diagnostics);
    if (!load.lookup) return { ok: false, summary: EMPTY_SUMMARY, diagnostics: [...ruleDiagnostics, ...inputDiagnostics], ...base };
    geoip = load.lookup;
  } else geoip = options.geoip;
  if (readsGeoFields(compiled.fields) && !geoip) {
    inputDiagnostics.push(rulesetDiagnostic('simulation-no-geoip', 'the ruleset reads country/ASN fields but no country/ASN table was given: those fields are missing for every packet that does not carry them', ''));
  }

  let reader: ByteReader;
  try {
    reader = openSource(source, options.inputName);
  } catch (e) {
    // A library caller gets the reason as a diagnostic, as for every other bad input.
    inputDiagnostics.push(unreadableInput(source, e));
    return { ok: false, summary: compiled.summary(), diagnostics: [...ruleDiagnostics, ...inputDiagnostics], ...base };
  }
  let rows: InputRun['rows'];
  try {
    const name = options.inputName ?? reader.name;
    let first = await readHead(reader);
    let gzip: GzipInput | undefined;
    if (isGzip(first)) {
      // Inflated as it is read; progress and the byte count are the compressed file's.
      const totalBytes = reader.size;
      gzip = gunzipInput(first, reader);
      reader = gzip.reader;
      first = await readHead(reader);
      const progress = options.progress;
      if (progress) options = { ...options, progress: (p) => progress({ ...p, bytes: gzip!.compressedBytes(), totalBytes }) };
    }
    const headLength = first.length;
    const format = captureFormatOf(first);
    const run: InputRun = { compiled, options, results, geoip, body, reader, first, name, diagnostics: inputDiagnostics };
    if (isParquet(first)) {
      if (reader.path === undefined) {
        inputDiagnostics.push(rulesetDiagnostic('simulation-unreadable-input', `${name} is a Parquet file, which is read from a file (its footer comes last): give its path, not ${gzip ? 'gzip-compressed Parquet' : 'a stream'}`, '', { data: { offset: 0 } }));
        return report(compiled, ruleDiagnostics, inputDiagnostics, { input: 'parquet', decoder: 'objects', threads: 0, bytes: headLength });
      }
      run.rows = rows = parquetLines(reader.path, reader.size ?? 0, run);
    }
    let end: InputEnd;
    if (http) end = yield* httpRequests(run, format);
    else if (run.rows) end = yield* ndjsonPackets(run);
    else if (format === 'pcap' && !results && headLength >= 24) end = await pcapChunks(run);
    else if (format === 'pcapng' && !results) end = await pcapngChunks(run);
    else if (format !== undefined) end = yield* captureRecords(run, format);
    else if (looksBinary(first)) {
      // Neither a capture (no magic) nor text: one clear error instead of a diagnostic per "line".
      const magic = Array.from(first.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
      inputDiagnostics.push(
        rulesetDiagnostic(
          'simulation-unknown-input',
          `${run.name} is neither a pcap/pcapng capture (it starts with ${magic}, no capture magic number) nor NDJSON text nor Parquet; give a capture, one packet object per line or Parquet flows (gzip-compressed or not)`,
          '',
          { data: { offset: 0 } },
        ),
      );
      end = { input: 'unknown', decoder: 'objects', threads: 0, bytes: headLength };
    } else end = yield* ndjsonPackets(run);
    if (gzip) {
      const failure = gzip.error();
      if (failure) inputDiagnostics.push(rulesetDiagnostic('simulation-unreadable-input', `${name}: gzip data that cannot be inflated after ${gzip.compressedBytes()} compressed bytes (${failure.message}); what came before was simulated`, '', { data: { offset: gzip.compressedBytes() } }));
      end = { ...end, bytes: gzip.compressedBytes() };
    }
    return report(compiled, ruleDiagnostics, inputDiagnostics, end);
  } finally {
    // Parquet rows a reader stopped early on (a request given to a network ruleset): DuckDB closed now.
    await rows?.return(0);
    reader.close();
  }
}

/**
 * The ruleset, validated and compiled: text is parsed here, so that diagnostics carry ranges in it. Its
 * problems alone when it has errors (then nothing is simulated).
 */
function prepareRuleset(ruleset: string | Ruleset, options: SimulateInputOptions): { problems: Diagnostic[] } | { body: unknown; compiled: CompiledRuleset; http: boolean; ruleDiagnostics: Diagnostic[] } {
  let body: unknown = ruleset;
  if (typeof ruleset === 'string') {
    try {
      body = JSON.parse(ruleset);
    } catch {
      body = undefined;
    }
  }
  const lists = options.lists === undefined || options.lists instanceof ListCatalog ? options.lists : ListCatalog.from(options.lists, { serviceToken: options.serviceToken });
  const problems = rulesetProblems(ruleset, { lists, serviceToken: options.serviceToken });
  if (hasErrors(problems)) return { problems };
  const compiled = compileRuleset(body as Ruleset, { lists, serviceToken: options.serviceToken, examplesPerRule: options.examplesPerRule, decoder: options.decoder });
  const http = isHttpRuleset(body);
  const ruleDiagnostics = [...compiled.diagnostics, ...problems.filter((d) => !d.pointer?.endsWith('/expression')), ...(http ? executeNotSimulated(body as Ruleset) : [])];
  return { body, compiled, http, ruleDiagnostics };
}

/** The diagnostic of an input that cannot be opened, with the system's reason. */
function unreadableInput(source: SimulationSource, e: unknown): Diagnostic {
  const err = e as NodeJS.ErrnoException;
  const what = typeof source === 'string' ? source : typeof source === 'object' && source !== null && 'path' in source ? String(source.path) : 'the input';
  const why = err?.code ? `${err.code}: ${err.message}` : String(err?.message ?? e);
  return rulesetDiagnostic('simulation-unreadable-input', `${what} cannot be read (${why})`, '', { data: err?.code ? { code: err.code } : undefined });
}

/** What each reader of an input works with: the compiled ruleset, the input opened and its first bytes read. */
interface InputRun {
  compiled: CompiledRuleset;
  options: SimulateInputOptions;
  /** Yield each packet's result (in order, on this thread). */
  results: boolean;
  geoip: GeoIpLookup | undefined;
  /** The ruleset body as parsed (its phase names the field set in messages). */
  body: unknown;
  reader: ByteReader;
  /** The input's first bytes, already read from `reader` (at most {@link HEAD_BYTES}). */
  first: Uint8Array;
  /** The input's name in messages. */
  name: string;
  /** Where the input's diagnostics go. */
  diagnostics: Diagnostic[];
  /** Parquet rows, read instead of the input's text lines (each one's number a row's, from 1). */
  rows?: AsyncGenerator<InputLine, number, undefined>;
}

/** One line of NDJSON text, or one Parquet row already an object; `lineNo` from 1; `bytesRead` of the input so far. */
interface InputLine {
  line: string | Record<string, unknown>;
  lineNo: number;
  bytesRead: number;
}

/** The first bytes of an input (at most {@link HEAD_BYTES}). */
async function readHead(reader: ByteReader): Promise<Uint8Array> {
  const head = new Uint8Array(HEAD_BYTES);
  return head.subarray(0, await reader.read(head, 0, HEAD_BYTES));
}

/** Parquet's magic number, `PAR1`, which starts (and ends) every Parquet file. */
const isParquet = (head: Uint8Array) => head.length >= 4 && head[0] === 0x50 && head[1] === 0x41 && head[2] === 0x52 && head[3] === 0x31;

/**
 * The rows of a Parquet file (./parquet-rows.ts, which `rulekit diff --against` reads too) as input lines;
 * bytes read are estimated from the rows read, for progress. A file DuckDB cannot read is an input
 * diagnostic (what was read before stays simulated).
 */
async function* parquetLines(path: string, size: number, run: InputRun): AsyncGenerator<InputLine, number, undefined> {
  try {
    for await (const batch of parquetRowBatches([path], run.options.signal)) {
      const bytesRead = batch.total ? Math.round((size * batch.read) / batch.total) : size;
      let n = batch.read - batch.rows.length;
      for (const row of batch.rows) yield { line: row, lineNo: ++n, bytesRead };
    }
  } catch (e) {
    if ((e as Error).name === 'MissingPartError' || (e as Error).name === 'AbortError' || run.options.signal?.aborted) throw e;
    run.diagnostics.push(rulesetDiagnostic('simulation-unreadable-input', `${run.name}: DuckDB could not read it as Parquet (${(e as Error).message.split('\n')[0]})`, ''));
  }
  return size;
}

/** What a reader says of the input at its end, for the report. */
type InputEnd = Pick<SimulationReport, 'input' | 'decoder' | 'threads' | 'bytes'>;

/** Progress of an input as a callback of (bytes, packets), when progress is asked for. */
function progressOf(run: InputRun): ((b: number, p: number) => void) | undefined {
  const { progress } = run.options;
  const total = run.reader.size;
  return progress ? (b, p) => progress({ bytes: b, totalBytes: total, packets: p }) : undefined;
}

/** The decoder a capture's frames are decided with: numeric slots when the ruleset allows and no per-packet results are asked for. */
const decoderOf = (run: InputRun): SimulationReport['decoder'] => (run.compiled.slotsDecider && !run.results ? 'slots' : 'objects');

/**
 * HTTP requests for an HTTP-phase ruleset: a HAR file (one JSON document, read whole), NDJSON request
 * objects or Logpush http_requests lines, or Parquet rows of either (examples numbered by row).
 */
async function* httpRequests(run: InputRun, format: ReturnType<typeof captureFormatOf>): AsyncGenerator<PacketResult, InputEnd, undefined> {
  const { compiled, options, results, geoip, reader, first, name } = run;
  const progress = options.progress;
  const total = reader.size;
  const unit = run.rows ? 'row' : 'line';
  let bytes = first.length;
  let packets = 0;
  if (!run.rows && (format !== undefined || looksBinary(first))) {
    const what = format ?? 'binary data';
    run.diagnostics.push(rulesetDiagnostic('simulation-http-phase', `${name} is ${what === 'binary data' ? what : `a ${what} capture`}, but the ruleset's phase reads HTTP requests: give a HAR file or NDJSON request objects`, '/phase', { data: { offset: 0 } }));
    return { input: format ?? 'unknown', decoder: 'objects', threads: 0, bytes };
  }
  // A request's index is its number among the requests, or its row's (Parquet: examples name rows).
  const decideRecord = function* (record: Record<string, unknown>, index = packets): Generator<PacketResult> {
    if ((packets & 1023) === 0) {
      options.signal?.throwIfAborted();
      progress?.({ bytes, totalBytes: total, packets });
    }
    const packet = geoip ? withGeoIp(record, geoip) : record;
    if (results) yield { index, ...compiled.run(packet, index) };
    else compiled.count(packet, index);
    packets++;
  };
  const decide = (request: HttpRequest, index?: number) => decideRecord(requestRecord(request, compiled.fields), index);
  if (!run.rows && HAR_START.test(new TextDecoder().decode(first))) {
    // A HAR file is one JSON document: read whole.
    const parts: Uint8Array[] = [];
    for await (const chunk of prepend(first, reader)) {
      options.signal?.throwIfAborted();
      parts.push(chunk);
      bytes += chunk.length;
    }
    bytes -= first.length;
    const read = readRequests(new TextDecoder().decode(Buffer.concat(parts)), { format: 'har' });
    parts.length = 0;
    run.diagnostics.push(...read.diagnostics);
    for (const { request } of read.requests) yield* decide(request);
    progress?.({ bytes, totalBytes: total, packets });
    return { input: 'har', decoder: 'objects', threads: 0, bytes };
  }
  // NDJSON request objects, a line at a time (a compact HAR document on one line is read as HAR), or
  // Logpush http_requests lines (told by the first line); Parquet rows are read as those lines would be.
  let inputFormat: 'har' | 'ndjson' | 'logpush' = 'ndjson';
  let logpush: LogpushMissing | undefined;
  const lines = run.rows ?? ndjsonLines(prepend(first, reader));
  for (;;) {
    const next = await lines.next();
    if (next.done) {
      bytes = next.value;
      break;
    }
    const { lineNo, bytesRead } = next.value;
    let line = next.value.line;
    bytes = bytesRead;
    if (typeof line === 'string' && !line.trim()) continue;
    const index = run.rows ? lineNo - 1 : undefined;
    const valueOf = (l: string | Record<string, unknown>) => (typeof l === 'string' ? parseOrUndefined(l) : l);
    if (packets === 0 && !logpush && inputFormat === 'ndjson' && isLogpushLine(valueOf(line))) {
      logpush = new LogpushMissing();
      inputFormat = 'logpush';
    }
    if (logpush) {
      const value = valueOf(line);
      if (!isLogpushLine(value)) {
        run.diagnostics.push(renumber(httpDiagnostic('http-invalid-request', `not a Logpush http_requests ${unit} (a JSON object with ClientRequestHost, ClientRequestMethod…)`, { line: 1 }), lineNo, unit));
        continue;
      }
      const { record, missing } = logpushRecord(value, compiled.fields);
      logpush.add(missing);
      yield* decideRecord(record, index);
      continue;
    }
    if (typeof line !== 'string') line = JSON.stringify(line);
    const read = readRequests(line, { format: 'ndjson' });
    if (!run.rows && read.format === 'ndjson' && !read.requests.length && lineNo === 1 && isHar(parseOrUndefined(line))) {
      inputFormat = 'har';
      const har = readRequests(line, { format: 'har' });
      run.diagnostics.push(...har.diagnostics);
      for (const { request } of har.requests) yield* decide(request);
      continue;
    }
    // Line numbers of the one-line reads are the file's.
    for (const d of read.diagnostics) run.diagnostics.push(renumber(d, lineNo, unit));
    for (const { request } of read.requests) yield* decide(request, index);
  }
  progress?.({ bytes, totalBytes: total, packets });
  if (logpush) {
    // Logpush lines carry the country and ASN themselves (ClientCountry, ClientASN): a rule reading them
    // over lines that lack them is named by the lines' own warning, not by the table's.
    const noTable = run.diagnostics.findIndex((d) => d.code === 'simulation-no-geoip');
    if (noTable >= 0) run.diagnostics.splice(noTable, 1);
    run.diagnostics.push(...logpush.diagnostics((run.body as { rules?: unknown } | null)?.rules));
  }
  return { input: run.rows ? 'parquet' : inputFormat, decoder: 'objects', threads: 0, bytes };
}

/** A classic pcap capture in chunks of whole records, counted on worker threads or here. */
async function pcapChunks(run: InputRun): Promise<InputEnd> {
  const { compiled, options, geoip, reader, first } = run;
  const frameOptions = { geoip, colo: options.colo };
  const total = reader.size;
  const header = pcapHeaderOf(first)!;
  const facts = pcapFacts(header);
  const linkTypes = new LinkTypes(run.diagnostics);
  linkTypes.see(header.linkType);
  const countFrame = compiled.frameCounter(frameOptions);
  const local = new LocalPool(chunkLoop(facts, countFrame), pcapCountingWalk(facts, countFrame));
  const threads = options.threads ?? defaultThreads(total);
  const pool = startPool(compiled, options, geoip, facts, threads);
  try {
    if (pool) pool.countHereUntilReady(local);
    const chunked: ChunkedResult = await feedPcapChunks(prependReader(first.subarray(24), reader), facts, pool ?? local, {
      chunkBytes: options.chunkBytes ?? 1 << 20,
      maxPacket: MAX_PACKET,
      signal: options.signal,
      onProgress: progressOf(run),
    });
    let bytes = chunked.bytes;
    if (pool) for (const s of await pool.finish()) compiled.merge(s);
    if (chunked.rest) {
      // A corrupt or cut record: the rest through the general parser, with whole-file offsets and numbers.
      const parser = new CaptureParser({ timestamps: 'number', maxPacketBytes: MAX_PACKET });
      parser.push(first.subarray(0, 24));
      parser.read();
      parser.resumePcapAt(chunked.rest.offset, chunked.rest.index, chunked.rest.lastSeconds);
      const rest = await countRecords(readBatchesWith(parser, prepend(chunked.rest.carry, reader)), compiled.frameCounter(frameOptions), chunked.rest.index, options.signal, linkTypes);
      run.diagnostics.push(...rest.summary.diagnostics);
      // The parser's byte count includes the file header pushed to it above.
      bytes = chunked.rest.offset + rest.summary.bytes - 24;
    }
    options.progress?.({ bytes, totalBytes: total, packets: compiled.summary().packets });
    return { input: 'pcap', decoder: decoderOf(run), threads: pool ? threads : 0, bytes };
  } finally {
    await pool?.close();
  }
}

/** A pcapng capture in chunks of whole blocks, counted on worker threads or here, as for classic pcap. */
async function pcapngChunks(run: InputRun): Promise<InputEnd> {
  const { compiled, options, geoip, reader, first } = run;
  const frameOptions = { geoip, colo: options.colo };
  const total = reader.size;
  const facts: PcapngFacts = { format: 'pcapng' };
  const linkTypes = new LinkTypes(run.diagnostics);
  const local = new LocalPool(chunkLoop(facts, compiled.frameCounter(frameOptions)));
  const threads = options.threads ?? defaultThreads(total);
  const pool = startPool(compiled, options, geoip, facts, threads);
  try {
    if (pool) pool.countHereUntilReady(local);
    const chunked = await feedPcapngChunks(prependReader(first, reader), pool ?? local, {
      chunkBytes: options.chunkBytes ?? 1 << 20,
      maxPacket: MAX_PACKET,
      signal: options.signal,
      onProgress: progressOf(run),
      onLinkType: (l) => linkTypes.see(l),
    });
    let bytes = chunked.bytes;
    if (pool) for (const s of await pool.finish()) compiled.merge(s);
    if (chunked.rest) {
      // A block the walk does not vouch for: the rest through the general parser, with whole-file offsets and numbers.
      const parser = new CaptureParser({ timestamps: 'number', maxPacketBytes: MAX_PACKET });
      parser.resumePcapngAt(chunked.rest.offset, chunked.rest.index, chunked.rest.section);
      const rest = await countRecords(readBatchesWith(parser, prepend(chunked.rest.carry, reader)), compiled.frameCounter(frameOptions), chunked.rest.index, options.signal, linkTypes);
      run.diagnostics.push(...rest.summary.diagnostics);
      bytes = chunked.rest.offset + rest.summary.bytes;
    }
    options.progress?.({ bytes, totalBytes: total, packets: compiled.summary().packets });
    return { input: 'pcapng', decoder: decoderOf(run), threads: pool ? threads : 0, bytes };
  } finally {
    await pool?.close();
  }
}

/** A capture through the general reader, on this thread: counted, or each packet's result yielded. */
async function* captureRecords(run: InputRun, format: 'pcap' | 'pcapng'): AsyncGenerator<PacketResult, InputEnd, undefined> {
  const { compiled, options, results, geoip, reader, first } = run;
  const progress = options.progress;
  const parser = new CaptureParser({ timestamps: 'number', maxPacketBytes: MAX_PACKET });
  const batches = readBatchesWith(parser, prepend(first, reader));
  const linkTypes = new LinkTypes(run.diagnostics);
  let bytes: number;
  if (!results) {
    const counted = await countRecords(batches, compiled.frameCounter({ geoip, colo: options.colo }), 0, options.signal, linkTypes, progressOf(run));
    run.diagnostics.push(...counted.summary.diagnostics);
    bytes = counted.summary.bytes;
  } else {
    const decode = { fields: compiled.fields, geoip, colo: options.colo, problems: false };
    let packets = 0;
    for (;;) {
      options.signal?.throwIfAborted();
      const next = await batches.next();
      if (next.done) {
        run.diagnostics.push(...next.value.diagnostics);
        bytes = next.value.bytes;
        break;
      }
      for (const rec of next.value) {
        linkTypes.see(rec.linkType);
        const packet = decodePacket(rec, decode).packet as Packet;
        yield { index: packets, ...compiled.run(packet, packets) };
        packets++;
      }
      if (next.value.length) progress?.({ bytes: next.value[next.value.length - 1]!.offset, totalBytes: reader.size, packets });
    }
  }
  return { input: format, decoder: decoderOf(run), threads: 0, bytes };
}

/** NDJSON: one packet object per line; or Parquet flows, one packet a row (examples numbered by row). */
async function* ndjsonPackets(run: InputRun): AsyncGenerator<PacketResult, InputEnd, undefined> {
  const { compiled, options, results, geoip, reader, first } = run;
  const progress = options.progress;
  const total = reader.size;
  const values = new ValueProblems(compiled.fields);
  const unit = run.rows ? 'row' : 'line';
  const lines = run.rows ?? ndjsonLines(prepend(first, reader));
  let bytes: number;
  let packets = 0;
  for (;;) {
    const next = await lines.next();
    if (next.done) {
      bytes = next.value;
      break;
    }
    const { line, lineNo, bytesRead } = next.value;
    if ((lineNo & 1023) === 0) {
      options.signal?.throwIfAborted();
      progress?.({ bytes: bytesRead, totalBytes: total, packets });
    }
    let p: unknown = line;
    if (typeof line === 'string') {
      if (!line.trim()) continue;
      try {
        p = JSON.parse(line);
      } catch (e) {
        run.diagnostics.push(rulesetDiagnostic('simulation-invalid-packet', `line ${lineNo}: not JSON (${(e as Error).message})`, '', { data: { line: lineNo } }));
        continue;
      }
    }
    if (p === null || typeof p !== 'object' || Array.isArray(p)) {
      run.diagnostics.push(rulesetDiagnostic('simulation-invalid-packet', `line ${lineNo}: a packet is a JSON object`, '', { data: { line: lineNo } }));
      continue;
    }
    if (packets === 0 && looksLikeRequests(p)) {
      // HTTP requests given to a network ruleset would be packets without a field: allowed, silently.
      const phase = (run.body as { phase?: unknown } | undefined)?.phase;
      run.diagnostics.push(
        rulesetDiagnostic('simulation-http-phase', `${unit} ${lineNo} is ${isHar(p) ? 'a HAR document' : 'an HTTP request object'}, but the ruleset's phase (${typeof phase === 'string' ? phase : 'none: network_transit'}) reads packets; give the ruleset its HTTP phase ("phase": "http_request_firewall_custom", …)`, '/phase', { data: { [unit]: lineNo } }),
      );
      return { input: run.rows ? 'parquet' : 'ndjson', decoder: 'objects', threads: 0, bytes: bytesRead };
    }
    // A country/ASN table fills the fields a packet line lacks, as the capture decoder does.
    const packet = values.check(geoip ? withGeoIp(p as Packet, geoip) : (p as Packet), { text: `${unit} ${lineNo}`, pointer: '' });
    const index = run.rows ? lineNo - 1 : packets;
    if (results) yield { index, ...compiled.run(packet, index) };
    else compiled.count(packet, index);
    packets++;
  }
  run.diagnostics.push(...values.diagnostics());
  progress?.({ bytes, totalBytes: total, packets });
  return { input: run.rows ? 'parquet' : 'ndjson', decoder: 'objects', threads: 0, bytes };
}

/**
 * Worker threads for chunks of `facts`' records, or undefined when there are to be none (`threads` 0, or
 * a country/ASN table given as an object, which workers cannot load themselves, that the rules read).
 */
function startPool(compiled: CompiledRuleset, options: SimulateInputOptions, geoip: GeoIpLookup | undefined, facts: ChunkFacts, threads: number): WorkerPool | undefined {
  const geoFromFile = typeof options.geoip === 'string' ? options.geoip : undefined;
  const canShare = !readsGeoFields(compiled.fields) || geoip === undefined || geoFromFile !== undefined;
  const portable = threads > 0 && canShare ? compiled.portable() : undefined;
  return portable ? new WorkerPool({ ruleset: portable, geoipPath: geoFromFile, colo: options.colo, facts }, threads) : undefined;
}

/** A reader whose first bytes are `head` (already read), then `reader`'s. */
function prependReader(head: Uint8Array, reader: ByteReader): ByteReader {
  let pending = head;
  return {
    name: reader.name,
    size: reader.size,
    path: reader.path,
    async read(into, offset, length) {
      let n = 0;
      if (pending.length) {
        n = Math.min(length, pending.length);
        into.set(pending.subarray(0, n), offset);
        pending = pending.subarray(n);
      }
      return n < length ? n + (await reader.read(into, offset + n, length - n)) : n;
    },
    chunks: () => prepend(pending, reader),
    close: () => reader.close(),
  };
}

/** Count the records of the general reader through `countFrame`; returns the reader's summary. */
async function countRecords(
  batches: AsyncGenerator<CaptureRecord[], CaptureSummary, undefined>,
  countFrame: FrameCounter,
  first: number,
  signal: AbortSignal | undefined,
  linkTypes: LinkTypes,
  onProgress?: (bytes: number, packets: number) => void,
): Promise<{ packets: number; summary: CaptureSummary }> {
  let index = first;
  for (;;) {
    signal?.throwIfAborted();
    const next = await batches.next();
    if (next.done) return { packets: index - first, summary: next.value };
    for (const rec of next.value) {
      if (rec.linkType !== linkTypes.last) linkTypes.see(rec.linkType);
      countFrame(rec.data, 0, rec.data.length, rec.linkType, index++);
    }
    if (next.value.length) onProgress?.(next.value[next.value.length - 1]!.offset, index);
  }
}

/** Names each link type the decoder does not read, once: its packets have no fields at all. */
class LinkTypes {
  last = -1;
  private readonly named = new Set<number>();

  constructor(private readonly out: Diagnostic[]) {}

  see(linkType: number): void {
    this.last = linkType;
    if (LINK_LAYERS.has(linkType) || this.named.has(linkType)) return;
    this.named.add(linkType);
    const known: Record<number, string> = { 105: 'IEEE 802.11', 127: 'IEEE 802.11 radiotap', 119: 'Prism 802.11', 163: 'AVS 802.11', 192: 'PPI' };
    this.out.push(
      captureDiagnostic(
        'capture-unsupported-link-type',
        0,
        `the capture has link type ${linkType}${known[linkType] ? ` (${known[linkType]})` : ''}, which the decoder does not read (it reads Ethernet, raw IP, Linux cooked v1/v2 and loopback): every field is missing for those packets, so only rules that hold for missing fields match them`,
        { linkType },
      ),
    );
  }
}

/** Bytes of NDJSON decoded at a time (see {@link ndjsonLines}). */
const LINE_SLICE = 64 << 10;

/** Lines of UTF-8 text from byte chunks, numbered from 1; the return value is the bytes read. */
async function* ndjsonLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<{ line: string; lineNo: number; bytesRead: number }, number, undefined> {
  const decoder = new TextDecoder();
  let rest = '';
  let lineNo = 0;
  let bytesRead = 0;
  for await (const chunk of chunks) {
    // Decoded a slice at a time: lines split from a string of a whole MiB were slower to parse and held
    // more memory (measured: 1.3-1.7x the requests/s on 300k Logpush lines; 1.2-1.3x on packet lines).
    for (let at = 0; at < chunk.length; at += LINE_SLICE) {
      const part = chunk.subarray(at, at + LINE_SLICE);
      bytesRead += part.length;
      rest += decoder.decode(part, { stream: true });
      const lines = rest.split('\n');
      rest = lines.pop()!;
      for (const line of lines) yield { line, lineNo: ++lineNo, bytesRead };
    }
  }
  rest += decoder.decode();
  if (rest) yield { line: rest, lineNo: ++lineNo, bytesRead };
  return bytesRead;
}

/** HAR documents as browsers and proxies write them: `{"log": {` first. */
const HAR_START = /^\uFEFF?\s*\{\s*"log"\s*:/;

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A diagnostic of a one-line read, with the line (or Parquet row) it came from. */
function renumber(d: Diagnostic, n: number, unit: 'line' | 'row' = 'line'): Diagnostic {
  if (d.data?.['line'] === undefined) return d;
  const { line: _line, ...data } = d.data;
  return { ...d, message: d.message.replace(/^line \d+: /, `${unit} ${n}: `), data: { ...data, [unit]: n } };
}

/** A parsed NDJSON line that is a HAR document or an HTTP request object (method and URL, no packet field). */
function looksLikeRequests(p: object): boolean {
  const o = p as Record<string, unknown>;
  return isHar(o) || (typeof o['method'] === 'string' && typeof o['url'] === 'string' && !Object.keys(o).some((k) => k.includes('.')));
}

/** Binary data, not NDJSON text: a NUL byte or a control character other than TAB/CR/LF in the first bytes. */
function looksBinary(head: Uint8Array): boolean {
  for (let i = 0; i < head.length; i++) {
    const b = head[i]!;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13) return true;
  }
  return false;
}

function report(
  compiled: CompiledRuleset,
  ruleDiagnostics: Diagnostic[],
  inputDiagnostics: Diagnostic[],
  facts: Pick<SimulationReport, 'input' | 'decoder' | 'threads' | 'bytes'>,
): SimulationReport {
  const summary = compiled.summary();
  const inputErrors = inputDiagnostics.some((d) => d.severity === 'error');
  return { ok: !inputErrors, summary, diagnostics: [...ruleDiagnostics, ...inputDiagnostics], ...facts };
}

/** Run a simulation to its end and return the report. */
export async function runSimulation(ruleset: string | Ruleset, source: SimulationSource, options: SimulateInputOptions = {}): Promise<SimulationReport> {
  const it = simulation(ruleset, source, options, false);
  for (;;) {
    const next = await it.next();
    if (next.done) return next.value;
  }
}
