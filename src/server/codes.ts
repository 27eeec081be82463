/**
 * The server's own error codes, beside the diagnostic codes of the bodies it validates. Each row gives the
 * HTTP status the code answers with; `docs/server-errors.md` lists the same rows (a test compares them).
 * Body problems found by rulekit's validators answer 400 with the validator's code.
 * @module
 */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** One server code: its status and meaning. */
export interface ServerCodeInfo extends DiagnosticCodeInfo {
  status: number;
}

export const SERVER_CODES = {
  'server-invalid-json': { status: 400, severity: 'error', doc: 'The body is not valid JSON; the message gives the line and column.' },
  'server-invalid-utf8': { status: 400, severity: 'error', doc: 'The body is not valid UTF-8; the byte offset of the first bad sequence is given.' },
  'server-json-too-deep': { status: 400, severity: 'error', doc: 'The body nests arrays and objects deeper than the limit (64).' },
  'server-missing-body': { status: 400, severity: 'error', doc: 'A write without a body.' },
  'server-bad-request': { status: 400, severity: 'error', doc: 'The request is not valid HTTP/1.1 (a malformed request line, header or chunk, or headers over 16 KiB); the connection is closed after the answer.' },
  'server-conflicting-credentials': { status: 400, severity: 'error', doc: 'The request sends both an API token (`Authorization`) and `X-Auth-Email`/`X-Auth-Key`; send one kind of credentials.' },
  'server-bad-authorization': { status: 400, severity: 'error', doc: '`Authorization` is not `Bearer <token>` (one token of the RFC 6750 alphabet).' },
  'server-invalid-parameter': { status: 400, severity: 'error', doc: 'A path or query parameter that is malformed (a job id that is not a number, `dry_run` other than true/false).' },
  'server-unknown-rule-id': { status: 400, severity: 'error', doc: 'A PUT names a rule `id` the ruleset does not have (ids are assigned by the server; omit `id` for a new rule).' },
  'server-duplicate-rule-id': { status: 400, severity: 'error', doc: 'A PUT names the same rule `id` twice.' },
  'server-immutable-member': { status: 400, severity: 'error', doc: 'A PUT changes what is fixed at creation: a ruleset’s `kind` or `phase`, a Logpush job’s `dataset`.' },
  'server-unknown-phase': { status: 400, severity: 'error', doc: 'An entry-point path names a phase the catalog does not have, or a phase of the other level (an account phase under a zone, or the reverse).' },
  'server-invalid-position': { status: 400, severity: 'error', doc: 'A rule’s `position` is not one of `{before}`, `{after}`, `{index}`, names a rule the ruleset does not have, or an index out of range.' },
  'server-current-version': { status: 400, severity: 'error', doc: 'A delete of a ruleset’s current version (the ruleset is that version): PUT a new version first, or delete the ruleset.' },
  'server-not-simulable': { status: 400, severity: 'error', doc: 'Simulation of a ruleset whose phase is not `network_transit`.' },
  'server-too-many-packets': { status: 400, severity: 'error', doc: 'A simulation request with more packets than the limit (10,000).' },
  'server-invalid-list': { status: 400, severity: 'error', doc: 'A list body the Lists API does not take: `name` of lower-case letters, digits and _ (at most 50), `kind` ip, hostname, asn or redirect, `description` of at most 500 characters.' },
  'server-invalid-list-item': { status: 400, severity: 'error', doc: 'A list item that is not one of the list’s kind (`{ip}` with an address or CIDR within the prefix limits, `{asn}`, `{hostname: {url_hostname}}`, `{redirect: {source_url, target_url, …}}`); the pointer names the item and member.' },
  'server-list-limit-reached': { status: 400, severity: 'error', doc: 'The account has as many lists (or lists of the kind) as it may have; delete one first.' },
  'server-invalid-member': { status: 400, severity: 'error', doc: 'A member of a Logpush ownership, validate or Instant Logs body that is missing, of the wrong type or out of range (`sample` below 1), or a `file://` destination outside the server’s Logpush directory; the pointer names it.' },
  'server-ownership-challenge-invalid': { status: 400, severity: 'error', doc: 'A job to a destination that needs an ownership challenge (s3, gs, azure, sumo, file) without a token this server issued for this account or zone and destination in the last 7 days (`POST …/logpush/ownership`).' },
  'server-invalid-transformer': { status: 400, severity: 'error', doc: 'A Logpush transformer body the API does not take: `name` missing or over 255 bytes, `code` (or a preview’s `sql`) missing or over 32,768 characters, `description` over 4,096 bytes, a preview without `input`; the pointer names the member. Problems in the SQL itself answer the `transformer-*` codes.' },
  'server-missing-credentials': { status: 401, severity: 'error', doc: 'Neither `Authorization: Bearer <token>` nor both `X-Auth-Email` and `X-Auth-Key`.' },
  'server-bad-credentials': { status: 403, severity: 'error', doc: 'No user has this email and key, or no API token is this one.' },
  'server-forbidden': { status: 403, severity: 'error', doc: 'The account or zone is not one of the user’s, or not one the API token names (whether or not it exists: the answer is the same).' },
  'server-token-read-only': { status: 403, severity: 'error', doc: 'An API token with `read` permission on the account or zone sent a method other than GET; the write needs `edit`.' },
  'server-not-found': { status: 404, severity: 'error', doc: 'No route has this path.' },
  'server-ruleset-not-found': { status: 404, severity: 'error', doc: 'The account or zone has no ruleset with this id.' },
  'server-rule-not-found': { status: 404, severity: 'error', doc: 'The ruleset has no rule with this id.' },
  'server-version-not-found': { status: 404, severity: 'error', doc: 'The ruleset has no stored version of this number (never written, or deleted).' },
  'server-job-not-found': { status: 404, severity: 'error', doc: 'The account or zone has no Logpush job with this id.' },
  'server-list-not-found': { status: 404, severity: 'error', doc: 'The account has no list with this id.' },
  'server-list-item-not-found': { status: 404, severity: 'error', doc: 'The list has no item with this id.' },
  'server-bulk-operation-not-found': { status: 404, severity: 'error', doc: 'The account has no bulk operation on list items with this id.' },
  'server-dataset-not-found': { status: 404, severity: 'error', doc: 'A Logpush dataset that is not catalogued, or not one of this scope (the message names the route that has it).' },
  'server-transformer-not-found': { status: 404, severity: 'error', doc: 'The account has no Logpush transformer with this id.' },
  'server-transformer-version-not-found': { status: 404, severity: 'error', doc: 'The transformer has no version with this `version_id` (`…/versions` lists them).' },
  'server-method-not-allowed': { status: 405, severity: 'error', doc: 'The path exists but not with this method; `Allow` lists the methods it takes.' },
  'server-phase-exists': { status: 409, severity: 'error', doc: 'The account or zone already has its entry-point ruleset for this phase (one per phase); PUT that one instead.' },
  'server-unsupported-transfer-encoding': { status: 501, severity: 'error', doc: 'A `Transfer-Encoding` other than `chunked` (e.g. `gzip, chunked`); the connection is closed after the answer.' },
  'server-transformer-not-runnable': { status: 501, severity: 'error', doc: 'A transformer preview of a valid query that uses what the reference server does not run (UNNEST, regular expressions, clocks, hashes…); the range names it. The query is stored by create and update as the service stores it.' },
  'server-errors-truncated': { status: 400, severity: 'error', doc: 'The last entry of an answer with more than 100 errors: how many more there are (the first 100 are listed). Fix those and send the body again.' },
  'server-list-name-exists': { status: 409, severity: 'error', doc: 'The account already has a list of this name (names are unique per account).' },
  'server-list-in-use': { status: 409, severity: 'error', doc: 'A list that rules of the account’s rulesets reference cannot be deleted; the message names them: change those rules first.' },
  'server-request-timeout': { status: 408, severity: 'error', doc: 'The request (headers and body) did not arrive within the request timeout (30 s by default); the connection is closed.' },
  'server-body-too-large': { status: 413, severity: 'error', doc: 'The body is larger than the limit (1 MiB by default).' },
  'server-unsupported-media-type': { status: 415, severity: 'error', doc: 'A body whose `Content-Type` is not `application/json`.' },
  'server-too-many-failed-logins': { status: 429, severity: 'error', doc: 'Too many requests with missing or wrong credentials from this client; `Retry-After` says when to try again.' },
  'server-internal': { status: 500, severity: 'error', doc: 'A fault of the server; the request id in the message finds it in the log. Nothing was written.' },
  'server-unavailable': { status: 503, severity: 'error', doc: 'The server is shutting down or its database is unreachable; nothing was written. `Retry-After` says when to try again.' },
  'server-write-outcome-unknown': { status: 503, severity: 'error', doc: 'The database connection was lost after the write was sent: it may have been applied. Read the ruleset’s (or job’s) version before writing again.' },
} as const satisfies Record<string, ServerCodeInfo>;

export type ServerCode = keyof typeof SERVER_CODES;
