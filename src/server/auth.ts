/**
 * Users, their keys and what they own; the check of `X-Auth-Email` + `X-Auth-Key`; the limit on failed
 * attempts per client.
 *
 * Keys are kept only as salted SHA-256 (`sha256:<salt hex>:<digest hex>`) and compared with
 * `timingSafeEqual`. A slow password hash (scrypt, argon2) would cost milliseconds on every request: API
 * keys are long random tokens, which a fast hash protects as well as a slow one protects a password. An
 * unknown email is hashed against a dummy record, so its answer takes as long as a wrong key's.
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A user as configured: the key in clear (hashed when loaded) or already hashed. */
export interface UserConfig {
  email: string;
  /** The API key in clear; kept only hashed. */
  key?: string;
  /** The key's hash as {@link hashKey} writes it. */
  key_hash?: string;
  /** Account ids the user owns. */
  accounts?: string[];
  /** Zone ids the user owns. */
  zones?: string[];
  /** The user's API tokens, each scoped to some of the user's accounts and zones (tokens.ts). */
  tokens?: TokenConfig[];
}

export type Permission = 'read' | 'edit';

export const PERMISSIONS: readonly Permission[] = ['read', 'edit'];

/** An API token as configured: the token in clear (hashed when loaded), or its id and hash. */
export interface TokenConfig {
  /** The token in clear; kept only hashed. At least 24 characters of the Bearer token alphabet. */
  token?: string;
  /** The token's first 8 characters (not secret): how the server finds it. Goes with `token_hash`. */
  id?: string;
  /** The whole token's hash, as `rulekit token create` writes it: `sha256:<salt hex>:<digest hex>`. */
  token_hash?: string;
  /** A name for messages and logs. */
  name?: string;
  /** Account id → permission. */
  accounts?: Record<string, Permission>;
  /** Zone id → permission. */
  zones?: Record<string, Permission>;
}

/** One entry of a users file: a user, or an API token of its own (no email; tokens.ts). */
export type UsersEntry = UserConfig | TokenConfig;

/** Whether an entry of a users file is a token of its own rather than a user. */
export function isTokenEntry(c: UsersEntry): c is TokenConfig {
  return !!c && typeof c === 'object' && !('email' in c) && ('token' in c || 'token_hash' in c);
}

/** A user as the server holds it. */
export interface User {
  email: string;
  salt: Buffer;
  digest: Buffer;
  accounts: ReadonlySet<string>;
  zones: ReadonlySet<string>;
}

/** Hash a key for a config file: `sha256:<salt hex>:<digest hex>`. */
export function hashKey(key: string, salt: Buffer = randomBytes(16)): string {
  return `sha256:${salt.toString('hex')}:${digest(salt, key).toString('hex')}`;
}

/** The salted SHA-256 of a key or token (what {@link hashKey} writes and sign-in compares). */
export function digest(salt: Buffer, key: string): Buffer {
  return createHash('sha256').update(salt).update(key, 'utf8').digest();
}

const HASH_FORMAT = /^sha256:([0-9a-f]{32}):([0-9a-f]{64})$/;

/** The salt and digest of a `sha256:<salt hex>:<digest hex>` hash, or undefined when it is not one. */
export function parseHash(text: unknown): { salt: Buffer; digest: Buffer } | undefined {
  const m = typeof text === 'string' ? HASH_FORMAT.exec(text) : null;
  return m ? { salt: Buffer.from(m[1]!, 'hex'), digest: Buffer.from(m[2]!, 'hex') } : undefined;
}

/**
 * Build the user table; throws with the user's index on a bad entry (configuration is checked at start).
 * Entries that are tokens of their own are skipped here (tokens.ts loads them).
 */
export function loadUsers(configs: readonly UsersEntry[]): Map<string, User> {
  const users = new Map<string, User>();
  configs.forEach((c, i) => {
    if (c && isTokenEntry(c)) return;
    if (!c || typeof c.email !== 'string' || !c.email.includes('@')) throw new Error(`user ${i}: "email" must be an email address`);
    let salt: Buffer;
    let d: Buffer;
    if (typeof c.key_hash === 'string') {
      const h = parseHash(c.key_hash);
      if (!h) throw new Error(`user ${i} (${c.email}): "key_hash" must look like sha256:<32 hex>:<64 hex> (rulekit hash-key prints one)`);
      salt = h.salt;
      d = h.digest;
    } else if (typeof c.key === 'string' && c.key.length >= 8) {
      salt = randomBytes(16);
      d = digest(salt, c.key);
    } else {
      throw new Error(`user ${i} (${c.email}): give "key" (at least 8 characters) or "key_hash"`);
    }
    const key = c.email.toLowerCase();
    if (users.has(key)) throw new Error(`user ${i}: the email ${c.email} is configured twice`);
    users.set(key, { email: c.email, salt, digest: d, accounts: new Set(c.accounts ?? []), zones: new Set(c.zones ?? []) });
  });
  return users;
}

const DUMMY: User = { email: '', salt: Buffer.alloc(16), digest: Buffer.alloc(32), accounts: new Set(), zones: new Set() };

/** The user with this email and key, or undefined; takes as long for an unknown email as for a wrong key. */
export function authenticate(users: ReadonlyMap<string, User>, email: string, key: string): User | undefined {
  const user = users.get(email.toLowerCase());
  const candidate = user ?? DUMMY;
  const ok = timingSafeEqual(digest(candidate.salt, key), candidate.digest);
  return user && ok ? user : undefined;
}

/** Whether the user owns the account or zone. */
export function owns(user: User, scope: 'accounts' | 'zones', id: string): boolean {
  return (scope === 'accounts' ? user.accounts : user.zones).has(id);
}

/** Limits on failed authentication per client. */
export interface FailureLimit {
  /** Failures allowed in one window (default 20). */
  max: number;
  /** Window length in milliseconds (default 60,000). */
  windowMs: number;
}

/**
 * Counts failed authentications per client address in fixed windows. While a client is over the limit,
 * every request of its is refused with 429, even one with good credentials: a key cannot be guessed
 * faster than the limit. In memory, per process: behind a load balancer the limit holds per replica.
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly limit: FailureLimit = { max: 20, windowMs: 60_000 }, private readonly now: () => number = Date.now) {}

  /** Seconds until the client may try again, or 0 when it may now. */
  blockedFor(client: string): number {
    const w = this.windows.get(client);
    if (!w) return 0;
    const t = this.now();
    if (t >= w.resetAt) {
      this.windows.delete(client);
      return 0;
    }
    return w.count >= this.limit.max ? Math.ceil((w.resetAt - t) / 1000) : 0;
  }

  /** Record one failure. */
  fail(client: string): void {
    const t = this.now();
    let w = this.windows.get(client);
    if (!w || t >= w.resetAt) {
      w = { count: 0, resetAt: t + this.limit.windowMs };
      this.windows.set(client, w);
    }
    w.count++;
    // Old windows go when the table grows, so a flood of addresses cannot hold memory.
    if (this.windows.size > 10_000) for (const [k, v] of this.windows) if (t >= v.resetAt) this.windows.delete(k);
  }
}
