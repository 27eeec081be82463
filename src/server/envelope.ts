/**
 * Answers in the service's envelope `{result, success, errors, messages}`: diagnostics become entries
 * `{code, message, source: {pointer}}` through the same `toEnvelope` the CLI prints.
 * @module
 */
import type { FastifyReply } from 'fastify';
import type { Diagnostic } from '../diagnostics/index.js';
import { toEnvelope } from '../ruleset/index.js';
import { SERVER_CODES, type ServerCode } from './codes.js';
import { jsonTextOf, rememberedOf } from './store/index.js';
import { AnswerSlabs } from './answer-slabs.js';

/** A diagnostic of the server's own. */
export function serverDiagnostic(code: ServerCode, message: string, pointer?: string): Diagnostic {
  const d: Diagnostic = { code, severity: 'error', message };
  if (pointer !== undefined) d.pointer = pointer;
  return d;
}

/** Regions the answers of stored records are encoded into (see answer-slabs.ts). */
const slabs = new AnswerSlabs();

/** Answer a result, with any warnings as messages. */
export function sendResult(reply: FastifyReply, result: unknown, diagnostics: readonly Diagnostic[] = [], status = 200): FastifyReply {
  const messages = diagnostics.filter((d) => d.severity !== 'error');
  reply.code(status).type('application/json; charset=utf-8');
  const kept = messages.length ? undefined : answerBytes(result);
  if (kept) return reply.send(kept);
  const pieces = envelopePieces(result, messages);
  if (!pieces) return reply.send(JSON.stringify(toEnvelope(result, messages)));
  const region = slabs.encode(pieces);
  if (!region) return reply.send(pieces.join(''));
  // Given back when the response is closed: after the socket took its bytes, or the connection went away.
  reply.raw.once('close', region.release);
  return reply.send(region.bytes);
}

/**
 * A record read again and again (GETs of a ruleset) is answered with the same bytes, made on its second
 * answer and kept with the record (the stores' caches hold the current version of recently used
 * rulesets): neither encoded nor allocated again (6–21% of a GET's server CPU in five of six alternating
 * runs). Its first answer, like every answer of a new record (each PUT's), is encoded into a region of
 * the answer slabs (see {@link sendResult}).
 */
function answerBytes(result: unknown): Uint8Array | undefined {
  const remembered = rememberedOf(result);
  if (!remembered) return undefined;
  const text = jsonTextOf(result)!;
  if (++remembered.answers < 2) return undefined;
  return (remembered.bytes ??= Buffer.from(`${RESULT}${text}${tailOf([])}`));
}

/**
 * The envelope of a result as JSON text: `JSON.stringify(toEnvelope(result, messages))`, byte for byte,
 * but a record the store returned is not serialised again: its stored text goes in as it is (a ruleset
 * of 50 rules is ~16 KB, whose serialisation was a tenth of a PUT's time).
 *
 * {@link sendResult} encodes its pieces into a region of kept slabs (answer-slabs.ts) rather than into a
 * Buffer of its own: a ~22 KB Buffer per answer lives until a garbage collection frees a batch of them at
 * once, and the allocator gives their pages back to the system, to fault them in again (under the bench's
 * PUT load: 1.3–4.7 page faults per request against 0.3–2.4, and 3–22% more server CPU per request than
 * a string, in five alternating runs).
 */
export function envelopeText(result: unknown, messages: readonly Diagnostic[]): string {
  return envelopePieces(result, messages)?.join('') ?? JSON.stringify(toEnvelope(result, messages));
}

/** {@link envelopeText} in the pieces it is made of, when the result has a stored text. */
function envelopePieces(result: unknown, messages: readonly Diagnostic[]): string[] | undefined {
  const text = jsonTextOf(result);
  if (text === undefined || messages.some((d) => d.severity === 'error')) return undefined;
  return [RESULT, text, tailOf(messages)];
}

const RESULT = '{"result":';

/**
 * The envelope after its result. The messages of a body answered again are the same frozen diagnostics
 * (the validation memo's) in a new array: their tail is kept, found by the first of them and checked
 * item by item (22 notes of the bench's body are a ~6 KB tail, joined again for every PUT before).
 */
function tailOf(messages: readonly Diagnostic[]): string {
  const first = messages[0];
  if (first === undefined) return EMPTY_TAIL;
  const kept = tails.get(first);
  if (kept && kept.items.length === messages.length && kept.items.every((d, i) => d === messages[i])) return kept.tail;
  const tail = `,"success":true,"errors":[],"messages":[${messages.map(entryText).join(',')}]}`;
  if (messages.every((d) => Object.isFrozen(d))) tails.set(first, { items: [...messages], tail });
  return tail;
}

const EMPTY_TAIL = ',"success":true,"errors":[],"messages":[]}';
const tails = new WeakMap<Diagnostic, { items: readonly Diagnostic[]; tail: string }>();

/** Entries of frozen diagnostics (the validation memo's, answered again and again), as JSON text. */
const entryTexts = new WeakMap<Diagnostic, string>();

/**
 * Entries by what they say, for diagnostics not seen before: a body with one rule edited is validated
 * again and its notes on the other rules are new objects saying what the last ones said (22 notes of the
 * bench's body were ~70 µs to serialise). The oldest {@link BY_CONTENT_MAX} go first.
 */
const byContent = new Map<string, string>();
const BY_CONTENT_MAX = 4096;

function entryText(d: Diagnostic): string {
  let text = entryTexts.get(d);
  if (text !== undefined) return text;
  const key = contentKey(d);
  text = key === undefined ? undefined : byContent.get(key);
  if (text === undefined) {
    text = JSON.stringify(toEnvelope(null, [d]).messages[0]);
    if (key !== undefined) {
      if (byContent.size >= BY_CONTENT_MAX) byContent.delete(byContent.keys().next().value!);
      byContent.set(key, text);
    }
  }
  if (Object.isFrozen(d)) entryTexts.set(d, text);
  return text;
}

/**
 * What decides a diagnostic's entry, as a string: undefined for one with a fix or a range of other
 * members than start and end (kept out rather than keyed in full). Lengths first: the pointer and the
 * message may hold any character.
 */
function contentKey(d: Diagnostic): string | undefined {
  if (d.fix !== undefined) return undefined;
  const r = d.range;
  if (r !== undefined && (typeof r !== 'object' || r === null || Object.keys(r).length !== 2 || typeof r.start !== 'number' || typeof r.end !== 'number')) return undefined;
  return `${d.code.length}:${d.code}|${d.severity}|${d.rangeIn ?? ''}|${r === undefined ? '' : `${r.start},${r.end}`}|${d.pointer === undefined ? -1 : d.pointer.length}|${d.pointer ?? ''}${d.message}`;
}

/** Answer errors (and any warnings beside them) with a status. */
export function sendErrors(reply: FastifyReply, status: number, diagnostics: readonly Diagnostic[]): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(toEnvelope(null, diagnostics));
}

/** Answer one server error with the status its code has. */
export function sendError(reply: FastifyReply, code: ServerCode, message: string, pointer?: string): FastifyReply {
  return sendErrors(reply, SERVER_CODES[code].status, [serverDiagnostic(code, message, pointer)]);
}
