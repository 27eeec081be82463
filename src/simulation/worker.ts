/**
 * A simulation worker thread's entry point: rebuilds the compiled ruleset from its portable form (no
 * expression parser: the decider's source and constants arrive as data), then counts the chunks of pcap
 * records it is sent and answers with its summary.
 * @module
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { PortableCounter } from '../engine/index.js';
import { chunkLoop } from './pcap-chunks.js';
import { loadGeoIpFile } from './geoip-file.js';
import type { ChunkMessage, FromWorker, WorkerSetup } from './workers.js';

async function workerMain(setup: WorkerSetup): Promise<void> {
  const port = parentPort!;
  const counter = new PortableCounter(setup.ruleset, RE2JS);
  const geoip = setup.geoipPath ? (await loadGeoIpFile(setup.geoipPath)).lookup : undefined;
  const countChunk = chunkLoop(setup.facts, counter.frameCounter({ geoip, colo: setup.colo }));
  port.on('message', (m: ChunkMessage | { type: 'end' }) => {
    try {
      if (m.type === 'end') {
        port.postMessage({ type: 'summary', summary: counter.summary() } satisfies FromWorker);
        return;
      }
      countChunk(m.buffer, m.length, m.index);
      // The buffer goes back to be filled again (workers.ts, WorkerPool.free).
      port.postMessage({ type: 'ack', buffer: m.buffer } satisfies FromWorker, [m.buffer]);
    } catch (e) {
      port.postMessage({ type: 'error', message: (e as Error)?.stack ?? String(e) } satisfies FromWorker);
    }
  });
  port.postMessage({ type: 'ack' } satisfies FromWorker); // ready
}

if (!isMainThread && (workerData as WorkerSetup | undefined)?.kind === 'rulekit-simulate') {
  workerMain(workerData as WorkerSetup).catch((e) => parentPort!.postMessage({ type: 'error', message: (e as Error)?.stack ?? String(e) } satisfies FromWorker));
}
