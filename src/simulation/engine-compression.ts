/**
 * Whether NDJSON files given to a SQL engine are gzip (Node only). DuckDB and ClickHouse tell compression
 * by the name (`.gz`); the in-process reader tells it by the magic bytes, whatever the name. A gzip file
 * named `flows.ndjson` read as text would have no line that is a JSON object, and the engine would count
 * 0 rows without a word; told by its bytes here, it is read with the engine's gzip option instead.
 * @module
 */
import { open } from 'node:fs/promises';
import { isGzip } from './gzip-source.js';

/** A name the engine expands itself (a glob): its files are not opened here. */
const isGlob = (f: string) => /[*?[]/.test(f);

/** Whether the file at `path` starts with gzip's magic bytes (false when it cannot be opened: the engine says why). */
async function startsAsGzip(path: string): Promise<boolean> {
  let fd;
  try {
    fd = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const head = new Uint8Array(2);
    const { bytesRead } = await fd.read(head, 0, 2, 0);
    return isGzip(head.subarray(0, bytesRead));
  } finally {
    await fd.close();
  }
}

/**
 * `'gzip'` when the named NDJSON files are gzip by their bytes, `undefined` when none is (the engine then
 * goes by the names, so `*.gz` globs still read). An engine takes one compression for all files of a
 * read: gzip and plain files together are refused (an Error saying which), as a gzip file in a glob whose
 * names do not say so cannot be told here.
 */
export async function ndjsonCompression(files: readonly string[]): Promise<'gzip' | undefined> {
  const named = files.filter((f) => !isGlob(f) && !/\.parquet$/i.test(f));
  const gzip = await Promise.all(named.map(startsAsGzip));
  if (!gzip.some(Boolean)) return undefined;
  if (gzip.every(Boolean) && named.length === files.filter((f) => !/\.parquet$/i.test(f)).length) return 'gzip';
  const plain = named.filter((_, i) => !gzip[i]).concat(files.filter(isGlob));
  throw new Error(`${named.find((_, i) => gzip[i])} is gzip and ${plain[0]} is not (or is a glob): the engine reads the files of one run with one compression; give gzip and plain NDJSON in separate runs, or name gzip files *.gz`);
}
