/**
 * The rows of Parquet files as objects, in file order, read by DuckDB a batch at a time (Node only): the
 * one reader of Parquet for everything rulekit decides in this process — `rulekit simulate` over Parquet
 * flows or Logpush `http_requests` rows, `rulekit diff --against FILE.parquet` (rulesets and filters),
 * `rulekit test` cases that name a Parquet file. A NULL column is a missing member (Parquet has no
 * "absent"), so a row reads as the NDJSON line it was written from.
 * @module
 */
import { loadPart } from '../optional-parts.js';
import { dialectOf, sqlString } from '../sql/index.js';

/** A batch of rows, with how far the file has been read. */
export interface ParquetBatch {
  /** The batch's rows, in file order. */
  rows: Record<string, unknown>[];
  /** Rows read so far, this batch included. */
  read: number;
  /** Rows in the files (from their footers). */
  total: number;
}

/** A row as DuckDB writes it in JSON (`to_json`), NULL members left out. */
export function rowObject(text: string | undefined): Record<string, unknown> {
  const v = JSON.parse(text ?? '{}') as Record<string, unknown>;
  for (const k of Object.keys(v)) if (v[k] === null) delete v[k];
  return v;
}

/**
 * The rows of `files` in batches (DuckDB's chunks, about 2,048 rows): the files are never held whole.
 * DuckDB keeps a scan's rows in file order (its `preserve_insertion_order`, on by default), which the
 * row numbers of examples rely on.
 */
export async function* parquetRowBatches(files: readonly string[], signal?: AbortSignal): AsyncGenerator<ParquetBatch, void, undefined> {
  const parquet = dialectOf('duckdb').source.parquet(files);
  const duckdb = await loadPart(['duckdb'], () => import('@duckdb/node-api'));
  const db = await duckdb.DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const list = `[${files.map((f) => sqlString(f, 'duckdb')).join(', ')}]`;
    const [meta] = (await con.runAndReadAll(`SELECT sum(num_rows) AS n FROM parquet_file_metadata(${list})`)).getRowObjectsJS();
    const total = Number(meta?.['n'] ?? 0);
    const result = await con.stream(`SELECT ${parquet.rowJson} AS t FROM ${parquet.from}`);
    let read = 0;
    for (;;) {
      signal?.throwIfAborted();
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const rows = chunk.getColumnValues(0).map((t) => rowObject(t as string));
      read += rows.length;
      yield { rows, read, total };
    }
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** The rows of Parquet files as objects, all of them (for counts over files that fit in memory). */
export async function readParquetObjects(files: readonly string[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of parquetRowBatches(files)) for (const row of batch.rows) out.push(row);
  return out;
}
