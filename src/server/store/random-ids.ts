/**
 * The server's random ids: 32 lower-case hex digits (128 bits from the CSPRNG), as the service's rulesets,
 * rules, lists, list items and bulk operations have.
 * @module
 */
import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn 4 KB at a time: one `randomBytes(16)` is a call into OpenSSL of ~5 µs, the most
 * expensive step of a PUT's record after its text (`npm run bench -- server`'s profile); from a pool it
 * is a slice (~0.15 µs). Node's own `randomUUID` keeps a pool the same way. Bytes are used once.
 */
const POOL = Buffer.alloc(4096);
let used = POOL.length;

/** A new random id of 32 hex digits. */
export function randomId(): string {
  if (used === POOL.length) {
    randomFillSync(POOL);
    used = 0;
  }
  const id = POOL.toString('hex', used, used + 16);
  used += 16;
  return id;
}
