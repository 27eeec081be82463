/**
 * What every route shares: the two scopes (account and zone), the owner of a request, its parsed body and
 * its `dry_run` flag, and the error a handler throws to answer an envelope at once.
 * @module
 */
import type { FastifyRequest } from 'fastify';
import type { Diagnostic } from '../../diagnostics/index.js';
import type { ListCatalog, ListItems } from '../../expression/index.js';
import type { Owner, Store, StoredRuleset } from '../store/index.js';
import type { ParsedBody, ValidationMemo } from '../body.js';
import { phaseInfo, type RuleCache } from '../../ruleset/index.js';
import { analyzeRuleset } from '../../analysis/index.js';
import type { AccountLists } from '../account-lists.js';
import type { OffThreadChecks } from '../off-thread.js';
import { SERVER_CODES, type ServerCode } from '../codes.js';
import { serverDiagnostic, type AnswerBytes } from '../envelope.js';

/** The path prefix of the API, as the official client uses it. */
export const API_PREFIX = '/client/v4';

/** What the routes work with. */
export interface RouteContext {
  store: Store;
  /** Account-level lists the expressions may name (`$name`), beside the managed `$svc.*` ones. */
  lists?: ListItems;
  /** When ruleset writes answer analysis findings as messages (default `dry-run`; `?analyze=true` asks for them). */
  analysis?: 'always' | 'dry-run' | 'never';
  /**
   * The same lists built once into a catalog for the validators: given as items, every validation would
   * build their address sets again, and the validator's cache of checked expressions is kept per catalog.
   */
  catalog?: ListCatalog;
  /** Each account's lists (stored and seeded), built for the validators (see account-lists.ts). */
  accountLists?: AccountLists;
  /** Validations already made (of the same body text, for the same operation, scope and phase). */
  validations?: ValidationMemo;
  /** Validation of large bodies off the server's thread (off-thread.ts). */
  offThread?: OffThreadChecks;
  /** What validation said of each rule before (an edited body is validated afresh, its unchanged rules are not). */
  rules?: RuleCache;
  /** The bytes of the answers of records read before (GET). */
  answers?: AnswerBytes;
  /** Where Logpush ownership challenge files are written, and `file://` destinations live (logpush-ownership.ts). */
  logpushDir?: string;
}

/**
 * Milliseconds the analysis of one ruleset write may take on the server's thread (analysis answers
 * advice in `messages`; a 200-rule ruleset of large sets took ~300–450 ms, which every other request
 * would wait through). Past it the rest is left to `rulekit analyze`.
 */
export const ANALYSIS_BUDGET_MS = 50;

/** Most packets one simulate request may carry. */
export const MAX_SIMULATED_PACKETS = 10_000;

/** One of the two levels resources live at. */
export interface Scope {
  /** Path segment. */
  path: 'accounts' | 'zones';
  /** Path parameter of the owner's id. */
  param: 'account_id' | 'zone_id';
  /** Validator scope. */
  scope: 'account' | 'zone';
  /** Word for messages. */
  noun: 'account' | 'zone';
}

export const SCOPES: readonly Scope[] = [
  { path: 'accounts', param: 'account_id', scope: 'account', noun: 'account' },
  { path: 'zones', param: 'zone_id', scope: 'zone', noun: 'zone' },
];

/** An answer a hook or handler gives by throwing: the error handler sends it in the envelope. */
export class EnvelopeError extends Error {
  constructor(readonly status: number, readonly diagnostics: Diagnostic[], readonly headers: Record<string, string> = {}) {
    super(diagnostics[0]?.message ?? 'error');
  }

  static of(code: ServerCode, message: string, pointer?: string, headers?: Record<string, string>): EnvelopeError {
    return new EnvelopeError(SERVER_CODES[code].status, [serverDiagnostic(code, message, pointer)], headers);
  }
}

/** The owner the request's path names (access was checked when the request arrived). */
export function ownerOf(req: FastifyRequest, scope: Scope): Owner {
  return { scope: scope.path, id: (req.params as Record<string, string>)[scope.param]! };
}

/** The request's parsed body; a write without one is refused. */
export function bodyOf(req: FastifyRequest): ParsedBody {
  const body = req.body as ParsedBody | undefined;
  if (!body || typeof body.text !== 'string') throw EnvelopeError.of('server-missing-body', `${req.method} needs a JSON body with Content-Type: application/json`);
  return body;
}

/** `?dry_run=true` (or false, or absent). */
export function dryRunOf(req: FastifyRequest): boolean {
  const v = (req.query as Record<string, unknown> | undefined)?.['dry_run'];
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw EnvelopeError.of('server-invalid-parameter', `dry_run must be true or false, not ${JSON.stringify(v)}`);
}

/** Most digits of a version number a path may give (the store keeps 32-bit integers). */
const VERSION_PATTERN = /^[1-9][0-9]{0,8}$/;

/**
 * The version number a path names (`…/versions/{ruleset_version}`), or undefined when it is not one: no
 * version has that name, so the routes answer it as a version not found.
 */
export function versionOf(req: FastifyRequest): number | undefined {
  const v = (req.params as Record<string, string>)['ruleset_version'] ?? '';
  return VERSION_PATTERN.test(v) ? Number(v) : undefined;
}

/** A path parameter by name (the route's schema names it, so it is there). */
export function paramOf(req: FastifyRequest, name: string): string {
  return (req.params as Record<string, string>)[name]!;
}

/** Whether the request leaves the advice of analysis and dry-run diffs on (`?analyze=false`, `analysis: 'never'` turn both off). */
export function analysisWanted(ctx: RouteContext, req: FastifyRequest): boolean {
  return (req.query as Record<string, unknown> | undefined)?.['analyze'] !== 'false' && ctx.analysis !== 'never';
}

/**
 * Findings of ruleset analysis (rules that can never decide, expressions never true), as messages: with
 * dry runs and `?analyze=true`, or every write under `analysis: 'always'` (see routes/rulesets.ts, whose
 * writes answer them the same way).
 */
export function analysisOf(ctx: RouteContext, req: FastifyRequest, ruleset: StoredRuleset, dryRun: boolean, lists: ListItems | undefined = ctx.lists): Diagnostic[] {
  if (!phaseInfo(ruleset.phase)) return [];
  const asked = (req.query as Record<string, unknown> | undefined)?.['analyze'];
  const mode = ctx.analysis ?? 'dry-run';
  if (!analysisWanted(ctx, req)) return [];
  if (!(asked === 'true' || mode === 'always' || dryRun)) return [];
  return analyzeRuleset(ruleset, { lists, budgetMs: ANALYSIS_BUDGET_MS }).diagnostics;
}

/**
 * A body's diagnostics: from the validation thread when the body is large and the thread is there
 * (`viaThread` answers undefined when it is not, and a thread that failed is not waited for again), else
 * from `here`, on the server's thread.
 */
export async function validatedOffThread(ctx: RouteContext, text: string, viaThread: (t: OffThreadChecks) => Promise<Diagnostic[]> | undefined, here: () => Diagnostic[]): Promise<Diagnostic[]> {
  const t = ctx.offThread;
  if (!t || !t.takes(text)) return here();
  const answer = await viaThread(t)?.catch(() => undefined);
  return answer ?? here();
}
