/**
 * Simulation of files and streams (Node only): a ruleset and a source — a file path, bytes, or a byte
 * stream such as standard input — holding a pcap/pcapng capture or NDJSON packet objects, run through
 * the ruleset into a summary, or per-packet results as an async iterable. Worker threads, progress and
 * cancellation included; the CLI only parses arguments and renders.
 *
 * ```ts
 * import { runSimulation, simulation } from 'rulekit/node';
 * const report = await runSimulation(rulesetJsonText, 'capture.pcap', { threads: 0, progress: (p) => … });
 * for await (const r of simulation(ruleset, process.stdin, {}, true)) console.log(r.index, r.verdict);
 * ```
 * @module
 */
export {
  runSimulation,
  simulation,
  defaultThreads,
  PARALLEL_MIN_BYTES,
  type SimulateInputOptions,
  type SimulationProgress,
  type SimulationReport,
  type PacketResult,
} from './run.js';
export { openSource, type SimulationSource, type ByteReader } from './source.js';
export { loadGeoIpFile } from './geoip-file.js';
export { simulateOnEngine, type EngineSimulationOptions, type EngineSimulationReport } from './sql-engine.js';
export { type SqlEngineName } from './sql-runner.js';
export { queryLogs, type LogQueryOptions, type LogQueryResult } from './sql-query.js';
export { readTrafficFile, TrafficFileError, type TrafficFileOptions, type TrafficIndex, type TrafficUnit } from './traffic-file.js';
export { countDiffOnEngine, countLogFilterDiffOnEngine, type EngineDiffOptions, type EngineLogDiffOptions, type EngineDiffReport } from './sql-diff.js';
export { readParquetObjects, parquetRowBatches, type ParquetBatch } from './parquet-rows.js';
export { simulateRequestsOnEngine, countRequestDiffOnEngine, type EngineRequestSimulationOptions, type EngineRequestDiffOptions } from './sql-requests.js';
