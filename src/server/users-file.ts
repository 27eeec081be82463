/**
 * Writing a users file (the `--users` file of `rulekit serve`): `rulekit token create` adds a token's
 * entry to it. The file is read as the server reads it (a JSON array of entries, or `{"users": [...]}`),
 * the result is checked with the server's own loaders before anything is written, so a file the command
 * wrote is one the server starts with, and it is replaced in one rename, so a crash leaves the old file.
 * @module
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { loadUsers, type UserConfig, type UsersEntry } from './auth.js';
import { loadTokens, type TokenConfig } from './tokens.js';

/**
 * Add a token entry to the users file at `path` (created when absent): as an entry of its own, or in the
 * `tokens` list of the user with `email`. Throws, writing nothing, when the result would not load.
 */
export function addTokenToUsersFile(path: string, entry: TokenConfig, email?: string): void {
  let doc: unknown = [];
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8');
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new Error(`${path} is not JSON: ${(e as Error).message}`);
    }
  }
  const list = Array.isArray(doc) ? doc : (doc as { users?: unknown })?.users;
  if (!Array.isArray(list)) throw new Error(`${path} must be a JSON array of users or {"users": [...]}`);
  if (email === undefined) list.push(entry);
  else {
    const user = list.find((u): u is UserConfig => !!u && typeof u === 'object' && typeof (u as UserConfig).email === 'string' && (u as UserConfig).email.toLowerCase() === email.toLowerCase());
    if (!user) throw new Error(`${path} has no user ${email}; add the user first, or leave out --email for a token of its own`);
    (user.tokens ??= []).push(entry);
  }
  const entries = list as UsersEntry[];
  try {
    loadTokens(entries, loadUsers(entries));
  } catch (e) {
    throw new Error(`${path} would not load with this token, nothing written: ${(e as Error).message}`);
  }
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  // The file holds hashes only, but keep whatever mode its owner gave it (0600 when new).
  writeFileSync(temporary, JSON.stringify(doc, null, 2) + '\n', { mode: existsSync(path) ? statSync(path).mode & 0o777 : 0o600 });
  renameSync(temporary, path);
}
