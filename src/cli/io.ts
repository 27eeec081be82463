/** File and stream helpers of the CLI (Node only). @module */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** Read a whole text file, `-` meaning standard input. */
export async function readText(path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  return readFile(path, 'utf8');
}

/** A byte stream of a file, `-` meaning standard input. */
export function byteStream(path: string): AsyncIterable<Uint8Array> {
  return path === '-' ? (process.stdin as AsyncIterable<Uint8Array>) : createReadStream(path, { highWaterMark: 1 << 20 });
}

/** Parse JSON text or exit with a message naming the file. */
export function parseJsonFile(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${path}: not valid JSON (${(e as Error).message})`);
  }
}

/** A problem with the command line or its input files: printed without a stack, exit code 2. */
export class UsageError extends Error {}
