/**
 * The records of a traffic file, one by one, as the semantic diff counts them: packets of a pcap/pcapng
 * capture or NDJSON packet objects; requests as NDJSON request objects, Logpush `http_requests` lines
 * (told by each line) or a HAR file. `rulekit diff --against` and the language server's diff lenses both
 * read through here, so both count the same records.
 * @module
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { captureFormatOf, decodePacket, readCapture } from '../capture/index.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { isHar, isLogpushLine, logpushRecord, readRequestObject, readRequests, requestRecord } from '../http/index.js';

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
export type TrafficIndex = 'frame' | 'line' | 'entry';

/**
 * Call `each` with every record of the file, in order, with its 0-based index (a frame, a line, an entry:
 * the answer says which). Throws {@link TrafficFileError}.
 */
export async function readTrafficRecords(path: string, unit: TrafficUnit, each: (record: Record<string, unknown>, index: number) => void): Promise<TrafficIndex> {
  const head = new Uint8Array(4);
  const fd = await open(path, 'r');
  try {
    await fd.read(head, 0, 4, 0);
  } finally {
    await fd.close();
  }
  if (unit === 'request') {
    if (captureFormatOf(head)) throw new TrafficFileError(`${path}: a packet capture, but the rulesets compared read HTTP requests: give NDJSON request objects, Logpush http_requests lines or a HAR file`);
    const read = await requestRecords(path);
    read.records.forEach((record, i) => each(record, read.lines ? read.lines[i]! - 1 : i));
    return read.lines ? 'line' : 'entry';
  }
  if (captureFormatOf(head)) {
    let index = 0;
    for await (const record of readCapture(createReadStream(path))) {
      const { packet } = decodePacket(record, { problems: false });
      each(packet as unknown as Record<string, unknown>, index++);
    }
    return 'frame';
  }
  const text = await textOf(path);
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

async function textOf(path: string): Promise<string> {
  return (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
}

/**
 * The records of an HTTP input: NDJSON request objects, Logpush `http_requests` lines (told by the first
 * line), or a HAR file. A line that is neither is an error naming it.
 */
async function requestRecords(path: string): Promise<{ records: Record<string, unknown>[]; lines?: number[] }> {
  const text = await textOf(path);
  const first = text.trimStart();
  if (first.startsWith('{')) {
    try {
      const whole = JSON.parse(first) as unknown;
      if (isHar(whole)) {
        const read = readRequests(text, { format: 'har' });
        const bad = read.diagnostics.find((d) => d.severity === 'error');
        if (bad) throw new TrafficFileError(`${path}: ${bad.message}`);
        return { records: read.requests.map((r) => requestRecord(r.request)) };
      }
    } catch (e) {
      if (e instanceof TrafficFileError) throw e;
      // several lines: NDJSON
    }
  }
  const records: Record<string, unknown>[] = [];
  const lines: number[] = [];
  for (const [n, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    lines.push(n + 1);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TrafficFileError(`${path}:${n + 1}: not JSON (NDJSON request objects or Logpush http_requests lines)`);
    }
    if (isLogpushLine(value)) {
      records.push(logpushRecord(value).record);
      continue;
    }
    const out: Diagnostic[] = [];
    const request = readRequestObject(value, { pointer: '', line: n + 1 }, out);
    if (!request) throw new TrafficFileError(`${path}:${n + 1}: ${out[0]?.message ?? 'not a request'} (NDJSON request objects or Logpush http_requests lines)`);
    records.push(requestRecord(request));
  }
  return { records, lines };
}
