/**
 * The records of a traffic file, one by one, as the semantic diff counts them: packets of a pcap/pcapng
 * capture or NDJSON packet objects; requests as NDJSON request objects, Logpush `http_requests` lines
 * (told by each line; NDJSON gzip-compressed or not, or Parquet rows) or a HAR file (src/http/traffic.ts,
 * which the playground's diff tab reads too). `rulekit diff --against` and the language server's diff
 * lenses both read through here, so both count the same records. Parquet is read by ./parquet-rows.ts,
 * as `rulekit simulate` reads it.
 * @module
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { captureFormatOf, decodeFrameInto, decodePacket, readCaptureBatches } from '../capture/index.js';
import { readTrafficRecords as readHttpTraffic, type LogpushMissing } from '../http/index.js';
import { readParquetObjects } from './parquet-rows.js';

/** A traffic file that cannot be read as asked: the message names the file (and line) and says why. */
export class TrafficFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrafficFileError';
  }
}

/** What the records stand for: packets (network phases) or HTTP requests. */
export type TrafficUnit = 'packet' | 'request';

/** What a record's index counts: a capture's frames, an NDJSON file's lines (less one), a HAR file's entries. */
export type TrafficIndex = 'frame' | 'line' | 'entry' | 'row';

/** Options of {@link readTrafficFile}. */
export interface TrafficFileOptions {
  /**
   * The fields the caller reads: a capture's frames are then decoded into one packet object refilled
   * for each (these fields only), and `each` is given a function that decodes the whole frame, for a
   * record the caller keeps.
   */
  fields?: ReadonlySet<string>;
}

/**
 * Call `each` with every record of the file, in order, with its 0-based index (a frame, a line, an entry:
 * the answer says which). Logpush lines leave some rule fields missing: `logpush` is then given what they
 * lacked, so that a caller can say which rules the lines do not decide. Throws {@link TrafficFileError}.
 * With `options.fields`, a capture's record is refilled for each frame: `whole` gives one to keep.
 */
export async function readTrafficFile(
  path: string,
  unit: TrafficUnit,
  each: (record: Record<string, unknown>, index: number, whole?: () => Record<string, unknown>) => void,
  logpush?: (missing: LogpushMissing) => void,
  options: TrafficFileOptions = {},
): Promise<TrafficIndex> {
  const head = new Uint8Array(4);
  const fd = await open(path, 'r');
  try {
    await fd.read(head, 0, 4, 0);
  } finally {
    await fd.close();
  }
  // gzip (told by its magic bytes, whatever the name): what it holds is told by its own first bytes.
  // The records are held in memory all the same (the counts keep examples), so it is inflated whole.
  const inflated = head[0] === 0x1f && head[1] === 0x8b ? gunzipOf(path, await readFile(path)) : undefined;
  if (inflated) head.set(inflated.subarray(0, 4));
  const textOf = async (): Promise<string> => (inflated ?? (await readFile(path))).toString('utf8').replace(/^\uFEFF/, '');
  if (unit === 'request') {
    if (captureFormatOf(head)) throw new TrafficFileError(`${path}: a packet capture, but the rulesets compared read HTTP requests: give NDJSON request objects, Logpush http_requests lines or a HAR file`);
    // Parquet rows (Logpush http_requests lines stored as Parquet, or request objects), read by DuckDB and
    // then read as the same lines would be in NDJSON: one reader decides what a request is.
    const parquet = /\.parquet$/i.test(path);
    const read = await requestRecords(path, parquet ? (await readParquetObjects([path])).map((row) => JSON.stringify(row)).join('\n') : await textOf());
    read.records.forEach((record, i) => each(record, read.lines ? read.lines[i]! - 1 : i));
    if (read.logpush) logpush?.(read.logpush);
    return parquet ? 'row' : read.lines ? 'line' : 'entry';
  }
  if (/\.parquet$/i.test(path)) {
    // Parquet flow rows, read by DuckDB and decided by the caller.
    (await readParquetObjects([path])).forEach((packet, index) => each(packet, index));
    return 'row';
  }
  if (captureFormatOf(head)) {
    let index = 0;
    const source = inflated ? [inflated] : createReadStream(path);
    const whole = (record: { linkType: number; data: Uint8Array }) => () => decodePacket(record, { problems: false }).packet as unknown as Record<string, unknown>;
    if (!options.fields) {
      for await (const batch of readCaptureBatches(source)) for (const record of batch) each(whole(record)(), index++);
      return 'frame';
    }
    // The fields the caller reads, into one object of one shape (as the simulator decodes frames): no
    // packet object a frame, and the rest of a frame decoded only for a record kept.
    const decode = { fields: options.fields, problems: false, fixedShape: true };
    const packet = decodePacket({ linkType: 1, data: new Uint8Array(0) }, decode).packet as unknown as Record<string, unknown>;
    let current = { linkType: 1, data: new Uint8Array(0) };
    const wholeOfCurrent = () => whole(current)();
    for await (const batch of readCaptureBatches(source)) {
      for (const record of batch) {
        current = record;
        decodeFrameInto(packet as never, record.data, 0, record.data.length, record.linkType, decode);
        each(packet, index++, wholeOfCurrent);
      }
    }
    return 'frame';
  }
  const text = await textOf();
  for (const [n, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let packet: unknown;
    try {
      packet = JSON.parse(line);
    } catch {
      throw new TrafficFileError(`${path}:${n + 1}: not a JSON object (NDJSON packet objects, or a pcap/pcapng capture)`);
    }
    if (packet === null || typeof packet !== 'object' || Array.isArray(packet)) throw new TrafficFileError(`${path}:${n + 1}: not a JSON object`);
    // Its index is its line's, less one: an example is named by the line an editor shows.
    each(packet as Record<string, unknown>, n);
  }
  return 'line';
}

/** The records of an HTTP input (src/http/traffic.ts); the first line that is no request is an error naming it. */
async function requestRecords(path: string, text: string): Promise<{ records: Record<string, unknown>[]; lines?: number[]; logpush?: LogpushMissing }> {
  const read = readHttpTraffic(text);
  const bad = read.diagnostics.find((d) => d.severity === 'error');
  if (bad) {
    const line = bad.data?.['line'] as number | undefined;
    const message = line === undefined ? bad.message : bad.message.replace(/^line \d+: /, '');
    throw new TrafficFileError(`${path}${line === undefined ? '' : `:${line}`}: ${message}${read.indexOf === 'line' ? ' (NDJSON request objects or Logpush http_requests lines)' : ''}`);
  }
  return { records: read.records.map((r) => r.record), ...(read.indexOf === 'line' ? { lines: read.records.map((r) => r.index + 1) } : {}), ...(read.logpush ? { logpush: read.logpush } : {}) };
}

/** A gzip file's content; a damaged one is an error naming the file. */
function gunzipOf(path: string, bytes: Buffer): Buffer {
  try {
    return gunzipSync(bytes);
  } catch (e) {
    throw new TrafficFileError(`${path}: gzip data that cannot be inflated (${(e as Error).message})`);
  }
}
