/**
 * Ids of lists, list items and bulk operations: 32 hex digits, random, as the Lists API's are.
 * @module
 */
import { randomBytes } from 'node:crypto';

/** A new random id of 32 hex digits. */
export function newListId(): string {
  return randomBytes(16).toString('hex');
}
