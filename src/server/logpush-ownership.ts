/**
 * Logpush ownership challenges as the service runs them (docs: logs/logpush/logpush-job/
 * logpush-ownership-challenge): asked for a destination, the service writes a token, a JWT bound to the
 * owner and the destination and valid 7 days, into a file `ownership-challenge-<8 hex>.txt` in the
 * bucket; a job to that destination is created only with that token.
 *
 * The reference server cannot write into buckets: with a directory configured (`logpushDir`, `serve
 * --logpush-dir`) it writes the file where the bucket would be, `<dir>/<scheme>/<bucket>/<path>/`, and it
 * takes `file:///<path>` destinations inside that directory, written as a bucket would be. Without one
 * the token is still issued and kept, answered in the `X-Rulekit-Ownership-Challenge` header and named
 * in `message` (the SDK's answer has no member for it).
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../diagnostics/index.js';
import { DATE_PLACEHOLDER, parseDestination, validateLogpushJob } from '../logpush/index.js';
import type { Owner, Store } from './store/index.js';
import { serverDiagnostic } from './envelope.js';

/** How long an issued token is valid (the service's JWTs expire after 7 days). */
export const OWNERSHIP_CHALLENGE_TTL_MS = 7 * 24 * 3600 * 1000;

/** The header an ownership answer carries its token in. */
export const OWNERSHIP_CHALLENGE_HEADER = 'x-rulekit-ownership-challenge';

/**
 * Destination schemes whose jobs need an ownership challenge, from the docs' table "Which destinations
 * require an ownership challenge?": AWS S3, Google Cloud Storage, Azure Blob Storage and Sumo Logic do;
 * S3-compatible storage (r2), HTTP endpoints, Datadog, Splunk (and New Relic, over https) do not. `file`
 * is the reference server's local stand-in for a bucket. S3 given its own access keys needs none (the
 * docs' "or use access key/secret key"), but rulekit's job validator asks for the token of every s3
 * destination (`ownership-challenge-missing`), so the server does too.
 */
export const OWNERSHIP_SCHEMES: ReadonlySet<string> = new Set(['s3', 'gs', 'azure', 'sumo', 'file']);

/** Whether creating a job to this destination needs an ownership challenge. */
export function needsOwnershipChallenge(destination: string): boolean {
  const p = parseDestination(destination);
  return p !== undefined && OWNERSHIP_SCHEMES.has(p.scheme.toLowerCase());
}

/** A `file://` destination: `file:///<absolute path>`. */
export const isFileDestination = (destination: string) => /^file:\/\//i.test(destination);

/**
 * The directory of a `file://` destination, when it is one the server may write to (inside
 * `logpushDir`); else why not. `{DATE}` and what follows it is left out: the challenge goes where the
 * date directories will be made.
 */
export function fileDestinationDir(destination: string, logpushDir: string | undefined): { dir: string } | { error: string } {
  if (!logpushDir) return { error: 'file:// destinations are the reference server\'s local buckets, taken only when it is started with a Logpush directory (serve --logpush-dir DIR, or the logpushDir option)' };
  let path: string;
  try {
    path = fileURLToPath(destination.split('?')[0]!.replace(/\{DATE\}.*$/, ''));
  } catch (e) {
    return { error: `${JSON.stringify(destination.slice(0, 80))} is not a file:///<absolute path> URL (${(e as Error).message})` };
  }
  const root = resolve(logpushDir);
  const dir = resolve(path);
  if (!isAbsolute(path) || (dir !== root && !dir.startsWith(root + sep))) return { error: `${dir} is outside the server's Logpush directory ${root}` };
  return { dir };
}

/**
 * Problems of a destination, as the job validator finds them under `/destination_conf`; `file://` is
 * taken (inside `logpushDir`) where the validator knows only the service's schemes.
 */
export function destinationDiagnostics(destination: string, logpushDir: string | undefined, pointer = '/destination_conf'): Diagnostic[] {
  if (isFileDestination(destination)) {
    const where = fileDestinationDir(destination, logpushDir);
    return 'error' in where ? [serverDiagnostic('server-invalid-member', where.error, pointer)] : [];
  }
  return validateLogpushJob({ destination_conf: destination }, { operation: 'update' })
    .filter((d) => d.pointer === '/destination_conf')
    .map((d) => ({ ...d, pointer }));
}

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** A new token for the owner's destination: JWT-shaped (header.claims.random), as the service's look. */
export function newChallengeToken(owner: Owner, destination: string, expiresAt: number): string {
  const claims = {
    typ: owner.scope === 'zones' ? 'zone' : 'account',
    id: owner.id,
    dest: createHash('sha256').update(destination).digest('hex').slice(0, 32),
    exp: Math.floor(expiresAt / 1000),
  };
  return `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.${b64url(randomBytes(24))}`;
}

/** Where the challenge file of a destination goes: the directory, and the name answered in `filename`. */
export function challengeLocation(destination: string, logpushDir: string | undefined, file: string): { dir?: string; filename: string } {
  if (isFileDestination(destination)) {
    const where = fileDestinationDir(destination, logpushDir);
    return 'dir' in where ? { dir: where.dir, filename: join(where.dir, file) } : { filename: file };
  }
  const p = parseDestination(destination)!;
  // The path inside the bucket, up to the date directories.
  const prefix = p.path.split(DATE_PLACEHOLDER)[0]!.replace(/^\/+|\/+$/g, '');
  const filename = prefix ? `${prefix}/${file}` : file;
  if (!logpushDir) return { filename };
  // Each part one directory name: no separators, no `.` or `..`.
  const safe = (s: string) => (/^\.*$/.test(s) ? '_' : s.replace(/[^A-Za-z0-9._-]/g, '_'));
  const root = resolve(logpushDir);
  const dir = resolve(root, safe(p.scheme.toLowerCase()), safe(p.target), ...prefix.split('/').filter((x) => x && x !== '.' && x !== '..').map(safe));
  return relative(root, dir).startsWith('..') ? { filename } : { dir, filename };
}

/** Write the challenge file (the token alone, as the service's file holds it). */
export async function writeChallengeFile(dir: string, file: string, token: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), token, { mode: 0o600 });
}

/** `ownership-challenge-<8 hex>.txt`, the service's file name. */
export const challengeFileName = () => `ownership-challenge-${randomBytes(4).toString('hex')}.txt`;

/** The job validator's diagnostics, with a `file://` destination judged as the server takes it. */
export function withFileDestination(diagnostics: Diagnostic[], body: unknown, logpushDir: string | undefined): Diagnostic[] {
  const dest = (body as Record<string, unknown> | null)?.['destination_conf'];
  if (typeof dest !== 'string' || !isFileDestination(dest)) return diagnostics;
  return [...diagnostics.filter((d) => d.pointer !== '/destination_conf'), ...destinationDiagnostics(dest, logpushDir)];
}

/**
 * Why a job write may not go to its destination: it needs an ownership challenge (a new job, or a job
 * moved to another destination) and `ownership_challenge` is not a token this server issued for this
 * owner and destination that is still valid. Undefined when it may.
 */
export async function ownershipRefusal(store: Store, owner: Owner, body: Record<string, unknown>, now: number, previousDestination?: string): Promise<Diagnostic | undefined> {
  const dest = body['destination_conf'];
  if (typeof dest !== 'string' || dest === previousDestination || !needsOwnershipChallenge(dest)) return undefined;
  const scheme = parseDestination(dest)!.scheme.toLowerCase();
  const ask = `POST /${owner.scope}/${owner.id}/logpush/ownership with this destination_conf writes one (${OWNERSHIP_SCHEMES.size} schemes need it: ${[...OWNERSHIP_SCHEMES].join(', ')})`;
  const token = body['ownership_challenge'];
  if (typeof token !== 'string' || token === '') {
    return serverDiagnostic('server-ownership-challenge-invalid', `a job to a ${scheme}:// destination needs "ownership_challenge", the token of its challenge file: ${ask}`, '/ownership_challenge');
  }
  if (await store.logpushExtra.hasOwnershipChallenge(owner, dest, token, now)) return undefined;
  return serverDiagnostic('server-ownership-challenge-invalid', `this ownership_challenge was not issued by this server for this ${owner.scope === 'zones' ? 'zone' : 'account'} and exactly this destination_conf, or is older than 7 days: ${ask}`, '/ownership_challenge');
}
