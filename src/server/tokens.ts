/**
 * API tokens (`Authorization: Bearer <token>`), beside keys: each token is scoped to accounts and zones,
 * with `read` (GET only) or `edit` (everything) on each. A token is configured in a users file either as
 * an entry of its own (`{"token" or "id" + "token_hash", "accounts": {id: perm}, "zones": {id: perm}}`) or
 * in a user's `tokens` list, where it may name only what the user owns (as a service token can never
 * exceed its user's rights).
 *
 * How a token is found: its first {@link TOKEN_ID_LENGTH} characters are its id, not secret, and the
 * table is keyed by them; the whole token is then checked against that entry's salted SHA-256 with
 * `timingSafeEqual`, and an unknown id is checked against a dummy entry, so an unknown token takes as
 * long as a wrong one. This is the key scheme with the id in the place of the email. The alternatives
 * were worse: a per-token salt cannot be looked up by the token's value (every entry would be hashed on
 * every request), and a keyed hash of the whole token needs a server secret that every replica and
 * `rulekit token create` would have to share. The id costs 48 of a generated token's 240 random bits.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { digest, hashKey, isTokenEntry, parseHash, PERMISSIONS, type Permission, type TokenConfig, type User, type UsersEntry } from './auth.js';

export { PERMISSIONS, type Permission, type TokenConfig };

/** What a token may do on an account or zone: `read` (GET and HEAD) or `edit` (every method). */
/** A token as the server holds it. */
export interface Token {
  id: string;
  /** How messages name it: its name, else its id. */
  label: string;
  /** The user it belongs to, for a token in a user's list. */
  owner?: string;
  salt: Buffer;
  digest: Buffer;
  accounts: ReadonlyMap<string, Permission>;
  zones: ReadonlyMap<string, Permission>;
}

/** Characters of a token that are its id. */
export const TOKEN_ID_LENGTH = 8;
/** Shortest token accepted in clear: the id and at least 16 secret characters. */
export const MIN_TOKEN_LENGTH = 24;
/** RFC 6750 token68: what may follow `Bearer `. */
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A new random token: 40 characters of base64url (240 bits), as long as the service's. */
export function generateToken(): string {
  return randomBytes(30).toString('base64url');
}

/** The id of a token. */
export function tokenId(token: string): string {
  return token.slice(0, TOKEN_ID_LENGTH);
}

/** The entry a users file keeps for a token: its id and salted hash, never the token. */
export function hashToken(token: string, scope: Pick<TokenConfig, 'name' | 'accounts' | 'zones'> = {}): TokenConfig {
  return { ...(scope.name ? { name: scope.name } : {}), id: tokenId(token), token_hash: hashKey(token), accounts: scope.accounts ?? {}, zones: scope.zones ?? {} };
}

function grants(where: string, member: 'accounts' | 'zones', value: unknown, owned: ReadonlySet<string> | undefined): Map<string, Permission> {
  if (value === undefined) return new Map();
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${where}: "${member}" must be an object of id → "read" or "edit", e.g. {"${member === 'accounts' ? 'acc' : 'zone'}-1": "edit"}`);
  const out = new Map<string, Permission>();
  for (const [id, perm] of Object.entries(value)) {
    if (!PERMISSIONS.includes(perm as Permission)) throw new Error(`${where}: ${member}.${id} is ${JSON.stringify(perm)}; give "read" or "edit"`);
    if (owned && !owned.has(id)) throw new Error(`${where}: the token names ${member === 'accounts' ? 'account' : 'zone'} ${id}, which its user does not own`);
    out.set(id, perm as Permission);
  }
  return out;
}

function loadToken(c: TokenConfig, where: string, owner?: User): Token {
  if (!c || typeof c !== 'object') throw new Error(`${where}: must be an object`);
  let id: string;
  let salt: Buffer;
  let d: Buffer;
  if (typeof c.token_hash === 'string') {
    const h = parseHash(c.token_hash);
    if (!h) throw new Error(`${where}: "token_hash" must look like sha256:<32 hex>:<64 hex> (rulekit token create writes one)`);
    if (typeof c.id !== 'string' || c.id.length !== TOKEN_ID_LENGTH) throw new Error(`${where}: "token_hash" goes with "id", the token's first ${TOKEN_ID_LENGTH} characters`);
    ({ salt, digest: d } = h);
    id = c.id;
  } else if (typeof c.token === 'string') {
    if (c.token.length < MIN_TOKEN_LENGTH || !TOKEN_SYNTAX.test(c.token)) throw new Error(`${where}: "token" must be at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (rulekit token create makes one)`);
    salt = randomBytes(16);
    d = digest(salt, c.token);
    id = tokenId(c.token);
  } else {
    throw new Error(`${where}: give "token" or "id" and "token_hash"`);
  }
  const accounts = grants(where, 'accounts', c.accounts, owner?.accounts);
  const zones = grants(where, 'zones', c.zones, owner?.zones);
  if (!accounts.size && !zones.size) throw new Error(`${where}: the token names no account or zone, so it could do nothing`);
  return { id, label: typeof c.name === 'string' && c.name ? c.name : id, owner: owner?.email, salt, digest: d, accounts, zones };
}

/**
 * Build the token table from a users file's entries (tokens of their own, and users' `tokens` lists);
 * throws naming the entry on a bad one. `users` is the table loadUsers built from the same entries.
 */
export function loadTokens(entries: readonly UsersEntry[], users: ReadonlyMap<string, User>): Map<string, Token> {
  const tokens = new Map<string, Token>();
  const add = (t: Token, where: string) => {
    if (tokens.has(t.id)) throw new Error(`${where}: another token starts with the same ${TOKEN_ID_LENGTH} characters (${t.id}); they are its id, make a new token`);
    tokens.set(t.id, t);
  };
  entries.forEach((c, i) => {
    if (!c) return;
    if (isTokenEntry(c)) add(loadToken(c, `entry ${i} (token)`), `entry ${i} (token)`);
    else if (c.tokens !== undefined) {
      if (!Array.isArray(c.tokens)) throw new Error(`user ${i} (${c.email}): "tokens" must be a list`);
      const owner = users.get(String(c.email).toLowerCase())!;
      c.tokens.forEach((t, j) => add(loadToken(t, `user ${i} (${c.email}) token ${j}`, owner), `user ${i} (${c.email}) token ${j}`));
    }
  });
  return tokens;
}

const DUMMY: Token = { id: '', label: '', salt: Buffer.alloc(16), digest: Buffer.alloc(32), accounts: new Map(), zones: new Map() };

/** The token with this value, or undefined; takes as long for an unknown id as for a wrong secret. */
export function authenticateToken(tokens: ReadonlyMap<string, Token>, value: string): Token | undefined {
  const token = tokens.get(tokenId(value));
  const candidate = token ?? DUMMY;
  const ok = timingSafeEqual(digest(candidate.salt, value), candidate.digest);
  return token && ok ? token : undefined;
}

/** What the token may do on the account or zone, or undefined when it names neither. */
export function tokenPermission(token: Token, scope: 'accounts' | 'zones', id: string): Permission | undefined {
  return (scope === 'accounts' ? token.accounts : token.zones).get(id);
}

/** Methods a `read` permission allows. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
