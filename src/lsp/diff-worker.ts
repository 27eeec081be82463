/**
 * The diff lenses' thread: the semantic diff of a ruleset file against its base, and the count of a
 * capture through both sides, take from milliseconds to seconds (a large capture); on the server's thread
 * they would hold up every keystroke that lands meanwhile. The capture's records are read once per
 * modification time and kept.
 * @module
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { ListItems } from '../expression/index.js';
import { readTrafficFile, type TrafficUnit } from '../simulation/index.js';
import { diffLenses, type DiffLensResult, type LensTraffic } from './diff-lenses.js';

/** A diff to make. */
export interface DiffLensRequest {
  oldText: string;
  newText: string;
  path: string;
  oldName: string;
  lists?: ListItems;
  serviceToken?: string;
  /** The capture: its path, what tells its versions apart (modification time and size), its name in lenses. */
  capture?: { path: string; stamp: string; name: string };
}

/** Its answer: the lenses, or an error (a capture that cannot be read). */
export type DiffLensReply = { id: number; result: DiffLensResult } | { id: number; error: string };

/** Marks the thread as this module's (workerData). */
export const DIFF_WORKER_KIND = 'rulekit-lsp-diff';

/** Records of captures read, by path, stamp and unit (the last few). */
const records = new Map<string, Promise<LensTraffic>>();
const KEPT = 4;

function recordsOf(path: string, stamp: string, unit: TrafficUnit): Promise<LensTraffic> {
  const key = `${unit} ${stamp} ${path}`;
  let known = records.get(key);
  if (!known) {
    const out: Record<string, unknown>[] = [];
    const indexes: number[] = [];
    known = readTrafficFile(path, unit, (r, i) => void (out.push(r), indexes.push(i))).then((examplesAre) => ({ records: out, indexes, examplesAre }));
    known.catch(() => records.delete(key));
    records.set(key, known);
    while (records.size > KEPT) records.delete(records.keys().next().value!);
  }
  return known;
}

/** Make the lenses of a request (on whichever thread calls it). */
export function runDiffLenses(m: DiffLensRequest): Promise<DiffLensResult> {
  const capture = m.capture;
  return diffLenses({
    oldText: m.oldText,
    newText: m.newText,
    path: m.path,
    oldName: m.oldName,
    lists: m.lists,
    serviceToken: m.serviceToken,
    ...(capture ? { traffic: { name: capture.name, read: (unit: TrafficUnit) => recordsOf(capture.path, capture.stamp, unit) } } : {}),
  });
}

function workerMain(): void {
  const port = parentPort!;
  port.on('message', (m: DiffLensRequest & { id: number }) => {
    runDiffLenses(m).then(
      (result) => port.postMessage({ id: m.id, result } satisfies DiffLensReply),
      (e: unknown) => port.postMessage({ id: m.id, error: (e as Error)?.message ?? String(e) } satisfies DiffLensReply),
    );
  });
}

if (!isMainThread && workerData === DIFF_WORKER_KIND) workerMain();
